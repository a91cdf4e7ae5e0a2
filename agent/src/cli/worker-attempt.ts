import { ConfigurationError } from "@whilly/core";
import { createAgentDispatch } from "../agents/dispatch.js";
import { createTaskAttempt } from "../pipeline/task-attempt.js";
import { checkAgentBin } from "../runner/agent-bin.js";
import type { RunAttempt } from "../worker/types.js";
import { openCloneWorkspaces } from "../workspace/clone.js";
import { findRepository } from "../workspace/repo.js";
import type { WorkerIo } from "./io.js";
import type { WorkerSettings } from "./settings.js";

/**
 * The worker's attempts, run as `whilly run` runs them (`createTaskAttempt`: setup, checks, retries with
 * the failure in the prompt, stall detection, process tracking): in a git clone a worktree per task
 * (docs/worker.md#branch-flow), outside git in place in `--workdir`. Says on `io.err` which.
 * Each task runs on the agent its claim names (docs/agents.md), through that agent's adapter.
 * @throws {ConfigurationError} when `CLAUDE_BIN` cannot be started (Claude Code the default agent), `--push` is given outside a git
 *   clone or for a remote the clone lacks, or the clone has no commit.
 */
export async function claudeWorkerAttempt(
  settings: WorkerSettings,
  io: Pick<WorkerIo, "err">,
): Promise<RunAttempt> {
  if (settings.agents.defaultAgent === "claude") {
    checkAgentBin(settings.claude.claudeBin, settings.agentEnv, settings.workdir);
  }
  const repo = await findRepository(settings.workdir, settings.gitEnv);
  if (repo === undefined && settings.push) {
    throw new ConfigurationError(
      `--push needs a git clone, and --workdir ${settings.workdir} is not in one`,
      {
        hint: "pass a clone of the project as --workdir (git clone URL DIR), or drop --push",
      },
    );
  }
  const workspaces =
    repo === undefined
      ? undefined
      : await openCloneWorkspaces({
          repoDir: repo,
          planId: settings.planId,
          remote: settings.remote,
          push: settings.push,
          env: settings.gitEnv,
          secrets: settings.secrets,
        });
  if (workspaces === undefined) {
    io.err.write(
      `whilly-worker: ${settings.workdir} is not in a git clone: tasks run in place, one at a time\n`,
    );
  } else {
    const push = settings.push ? `DONE work pushed to ${settings.remote}` : "DONE work kept in the clone";
    io.err.write(
      `whilly-worker: a worktree per task in ${workspaces.repoDir} from ${workspaces.startCommit.slice(0, 12)}; ${push}\n`,
    );
    if (!workspaces.hasRemote) {
      io.err.write(
        `whilly-worker: warning: the clone has no remote '${settings.remote}': a dependency's work that is not in this clone cannot be fetched\n`,
      );
    }
  }
  const secrets = [...settings.secrets, ...(workspaces?.remoteSecrets ?? [])];
  const runAgent = createAgentDispatch({
    registry: settings.agents.registry,
    defaults: settings.agents.defaults,
    killGraceMs: settings.claude.killGraceMs,
    timeoutMs: settings.taskTimeoutMs,
    stallTimeoutMs: settings.stallTimeoutMs,
    env: settings.agentEnv,
    secrets,
    stateDir: settings.stateDir,
  });
  return createTaskAttempt({
    workspaces,
    cwd: settings.workdir,
    runAgent,
    setup: settings.setup,
    verify: settings.verify,
    verifyTimeoutMs: settings.verifyTimeoutMs,
    killGraceMs: settings.claude.killGraceMs,
    env: settings.agentEnv,
    stateDir: settings.stateDir,
    workerId: settings.workerId,
    secrets,
  });
}
