import {
  type AgentSetup,
  checkAgentBin,
  checkBranchOption,
  findWorkingAgents,
  parseAgentFlags,
  trizAgentOf,
  type WorkingAgents,
} from "@whilly/agent";
import { MAX_MAX_ATTEMPTS } from "@whilly/core";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { durationFlag, textFlag, wholeNumberOption } from "../options.js";
import { runLocal } from "../run/local-run.js";
import { agentsNamedIn, leavesAgentToRun } from "../run/plan-agents.js";
import { checkRepository, claudeRunner } from "../run/runner.js";
import { findWorkspace, prepareWhillyDir } from "../store/workspace-root.js";
import { MAX_CONCURRENCY, type RunArgs } from "./run-options.js";

/** `whilly run`'s work: checks the flags and the agents, then runs the plan; sets `ctx.exitCode`. */
export async function runPlan(ctx: CliContext, args: RunArgs): Promise<void> {
  if (args.file === undefined && args.plan === undefined) {
    throw new UsageError("name a plan file or --plan ID", {
      hint: "e.g. whilly run examples/demo.tasks.json",
    });
  }
  const taskTimeoutMs = durationFlag(args.taskTimeout, "--task-timeout", "45m");
  const verifyTimeoutMs = durationFlag(args.verifyTimeout, "--verify-timeout", "10m");
  const stallTimeoutMs = durationFlag(args.stallTimeout, "--stall-timeout", "10m");
  const maxTasks = wholeNumberOption(args.maxTasks, "--max-tasks", {
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  });
  const concurrency =
    wholeNumberOption(args.concurrency, "--concurrency", { min: 1, max: MAX_CONCURRENCY }, 1) ?? 1;
  const maxAttempts = wholeNumberOption(args.maxAttempts, "--max-attempts", {
    min: 1,
    max: MAX_MAX_ATTEMPTS,
  });
  const uiPort = uiPortFlag(args.ui, args.port, ctx);
  const setup = textFlag(args.setup, "--setup");
  const verify = verifyFlag(args.verify);
  const branch = textFlag(args.branch, "--branch");
  const workspace = findWorkspace(ctx.io.cwd);
  const inGit = workspace.gitCommonDir !== undefined;
  if (!inGit && concurrency > 1) {
    throw new UsageError(
      `--concurrency ${concurrency} needs a git repository: each task runs in its own worktree, and outside git tasks run in place, one at a time`,
      { hint: "run it in a git repository (git init, then a first commit), or drop --concurrency" },
    );
  }
  if (!inGit && branch !== undefined) {
    throw new UsageError("--branch needs a git repository: outside git tasks run in place", {
      hint: "run it in a git repository, or drop --branch",
    });
  }
  if (inGit) await checkRepository(workspace.root, ctx.io.env);
  if (inGit && branch !== undefined) await checkBranchOption(workspace.root, branch, ctx.io.env);
  // Before the store is opened: a missing agent would fail every task claimed, one after another.
  const { agents, working } = await runAgents(args, ctx);
  const claude = agents.settings.claude;
  // A stored plan is run only from a store that exists; a file may start a new one.
  // Owned, never served by another process: a run takes over what a run that is gone left claimed.
  if (args.file === undefined) await ctx.store({ mustExist: true, own: true });
  // Running attempts are recorded in .whilly/, so the next run can end what a kill -9 left running.
  const stateDir = workspace.whillyDir;
  ctx.exitCode = await runLocal(ctx, {
    file: args.file,
    planId: args.plan,
    maxTasks,
    json: args.json,
    concurrency,
    maxAttempts,
    noWait: !args.wait,
    stateDir,
    uiPort,
    prepareStateDir: () => prepareWhillyDir(workspace),
    trizAgent: ctx.settings.triz.enabled
      ? trizAgentOf(claude, {
          env: ctx.io.env,
          secrets: ctx.settings.secrets,
          timeoutMs: ctx.settings.triz.timeoutMs,
          cwd: ctx.io.cwd,
        })
      : undefined,
    makeRunner: (plan) =>
      claudeRunner({
        plan,
        repoDir: inGit ? workspace.root : undefined,
        cwd: ctx.io.cwd,
        stateDir,
        branch,
        setup,
        verify,
        claude,
        agents: { setup: agents, working: working.agents },
        taskTimeoutMs,
        verifyTimeoutMs,
        stallTimeoutMs,
        env: ctx.io.env,
        secrets: ctx.settings.secrets,
      }),
  });
}

/**
 * The run's agents from its flags, checked before anything is stored: Claude Code's program when it is
 * the default agent (as before there were several) and some task may run on it (a plan file naming
 * the agent of every task needs no default), then every configured agent's start check, whose
 * misses are said on stderr.
 * @throws {ConfigurationError} for a bad agent flag or a named agent that does not start.
 */
async function runAgents(
  args: Readonly<Record<string, unknown>>,
  ctx: CliContext,
): Promise<{ agents: AgentSetup; working: WorkingAgents }> {
  const agents = parseAgentFlags(
    {
      agent: textFlag(args.agent, "--agent"),
      model: textFlag(args.model, "--model"),
      forceAgent: textFlag(args.forceAgent, "--force-agent"),
      forceModel: textFlag(args.forceModel, "--force-model"),
      agentCmd: textFlag(args.agentCmd, "--agent-cmd"),
      tags: textFlag(args.tags, "--tags"),
    },
    ctx.io.env,
    ctx.io.cwd,
  );
  const file = typeof args.file === "string" ? args.file : undefined;
  // A plan file that names the agent of every task needs no default agent (Claude Code) installed.
  const defaultUnused = file !== undefined && !leavesAgentToRun(file, ctx.io.cwd);
  if (agents.defaultAgent === "claude" && (agents.explicit || !defaultUnused))
    checkAgentBin(agents.settings.claude.claudeBin, ctx.io.env, ctx.io.cwd);
  const only = file === undefined ? undefined : agentsNamedIn(file, ctx.io.cwd);
  const working = await findWorkingAgents(agents, { env: ctx.io.env, cwd: ctx.io.cwd, only, defaultUnused });
  for (const note of working.notes) ctx.io.err.write(`whilly run: ${note}\n`);
  return { agents, working };
}

/**
 * `--verify` commands as given; `undefined` when absent. A blank one (`--verify ''`, a bare `--verify`)
 * is refused rather than dropped, so a check the user meant is never silently not run.
 * @throws {UsageError} naming the flag and the fix.
 */
function verifyFlag(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const commands = (Array.isArray(raw) ? raw : [raw]).map(String);
  if (commands.length === 0 || commands.some((command) => command.trim() === "")) {
    throw new UsageError("--verify is empty", {
      hint: "give a command, e.g. --verify 'npm test', or drop --verify",
    });
  }
  return commands;
}

/**
 * The dashboard's port of `--ui [--port N]`: `--port`, else `WHILLY_UI_PORT`; `undefined` without `--ui`.
 * @throws {UsageError} for a bad `--port`, or `--port` without `--ui`.
 */
function uiPortFlag(ui: unknown, port: unknown, ctx: CliContext): number | undefined {
  if (ui !== true) {
    if (port === undefined) return undefined;
    throw new UsageError("--port needs --ui: it is the port of the run's web dashboard", {
      hint: "add --ui, or drop --port",
    });
  }
  return wholeNumberOption(port, "--port", { min: 0, max: 65_535 }, ctx.settings.ui.port);
}
