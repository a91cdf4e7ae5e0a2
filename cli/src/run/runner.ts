import { existsSync } from "node:fs";
import {
  type AgentSetup,
  type ClaudeSettings,
  claimChoice,
  createAgentDispatch,
  createClaudeAgent,
  createTaskAttempt,
  type FinishResult,
  gitRunner,
  openWorkspaces,
} from "@whilly/agent";
import { ConfigurationError, type PlanRecord } from "@whilly/core";
import type { PlanRunner, RunAgents } from "./plan-runner.js";
import type { Integration } from "./summary.js";

/** Options of {@link claudeRunner}. Durations are ms. */
export type ClaudeRunnerOptions = {
  readonly plan: PlanRecord;
  /** The git repository's root: each attempt in a worktree of its own. `undefined` outside git: in place. */
  readonly repoDir: string | undefined;
  /** Where the command runs: the agent's directory when tasks run in place. */
  readonly cwd: string;
  /** `.whilly/`: running attempts and checks are recorded there. */
  readonly stateDir: string;
  /** `--branch`: the integration branch; default `whilly/<plan-slug>`. */
  readonly branch?: string | undefined;
  /** `--setup`: overrides the plan's `setup`. */
  readonly setup?: string | undefined;
  /** `--verify`: overrides the plan's `verify`. */
  readonly verify?: readonly string[] | undefined;
  readonly claude: ClaudeSettings;
  /** The agents (`--agent`, `--agent-cmd`, ...) and those found working; Claude Code alone when undefined. */
  readonly agents?: { readonly setup: AgentSetup; readonly working: readonly string[] } | undefined;
  readonly taskTimeoutMs: number;
  readonly verifyTimeoutMs: number;
  readonly stallTimeoutMs: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: readonly string[];
};

/**
 * Runs each attempt with its task's agent (Claude Code unless `agents` says otherwise) through whilly's pipeline (docs/worktrees.md,
 * docs/verification.md): in a git repository a worktree per task, its checks, and the merge into the
 * integration branch, which `finish` then takes to the user's branch; outside git in place.
 * @throws ConfigurationError when the repository has no commit yet, or `branch` is not a usable name.
 */
export async function claudeRunner(options: ClaudeRunnerOptions): Promise<PlanRunner> {
  const runAgent =
    options.agents === undefined
      ? createClaudeAgent({
          settings: options.claude,
          timeoutMs: options.taskTimeoutMs,
          stallTimeoutMs: options.stallTimeoutMs,
          env: options.env,
          secrets: options.secrets,
          stateDir: options.stateDir,
        })
      : createAgentDispatch({
          registry: options.agents.setup.registry,
          defaults: options.agents.setup.defaults,
          killGraceMs: options.claude.killGraceMs,
          timeoutMs: options.taskTimeoutMs,
          stallTimeoutMs: options.stallTimeoutMs,
          env: options.env,
          secrets: options.secrets,
          stateDir: options.stateDir,
        });
  const agents: RunAgents | undefined =
    options.agents === undefined
      ? undefined
      : {
          working: options.agents.working,
          tags: options.agents.setup.tags,
          choice: claimChoice(options.agents.setup.defaults),
          adapters: options.agents.setup.registry.adapters,
        };
  const workspaces =
    options.repoDir === undefined
      ? undefined
      : await openWorkspaces({
          repoDir: options.repoDir,
          planId: options.plan.id,
          branch: options.branch,
          env: options.env,
        });
  return {
    agents,
    runAttempt: (workerId, slotIds) =>
      createTaskAttempt({
        workspaces,
        cwd: options.cwd,
        runAgent,
        setup: options.setup,
        verify: options.verify,
        verifyTimeoutMs: options.verifyTimeoutMs,
        killGraceMs: options.claude.killGraceMs,
        env: options.env,
        stateDir: options.stateDir,
        workerId,
        // A retry after another slot's attempt reuses its worktree and session: they are on this machine.
        localWorkerIds: slotIds,
        secrets: options.secrets,
      }),
    ...(workspaces === undefined
      ? {}
      : {
          keptPath: (taskId: string) => {
            const { dir } = workspaces.keptPaths({ id: taskId, description: "" });
            return existsSync(dir) ? dir : undefined;
          },
          finish: async () => integrationOf(await workspaces.finish(), workspaces.integrationBranch),
        }),
  };
}

function integrationOf(result: FinishResult, branch: string): Integration {
  const changed = { userTreeChanged: result.userTreeChanged };
  if (result.fastForwarded) return { branch, fastForwarded: true, ...changed };
  // git's own explanation may run to several lines; the summary keeps its first.
  const why = result.why?.split("\n")[0]?.trim();
  return { branch, fastForwarded: false, command: result.command, why, ...changed };
}

/**
 * Refuses, before anything is stored, a repository where no worktree can start: one with no commit.
 * @throws {ConfigurationError} with the hint to make a first commit.
 */
export async function checkRepository(
  repoDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const head = await gitRunner(env).run(repoDir, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  if (head.code === 0) return;
  throw new ConfigurationError(
    `the git repository at ${repoDir} has no commit yet: each task's worktree starts from a commit`,
    { hint: "make a first commit: git commit --allow-empty -m init" },
  );
}
