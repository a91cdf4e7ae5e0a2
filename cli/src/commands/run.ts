import {
  type AgentSetup,
  checkAgentBin,
  checkBranchOption,
  findWorkingAgents,
  parseAgentFlags,
  trizAgentOf,
  type WorkingAgents,
} from "@whilly/agent";
import {
  DEFAULT_STALL_TIMEOUT,
  DEFAULT_TASK_TIMEOUT,
  DEFAULT_VERIFY_TIMEOUT,
  MAX_MAX_ATTEMPTS,
} from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { durationFlag, textFlag, wholeNumberOption } from "../options.js";
import { runLocal } from "../run/local-run.js";
import { agentsNamedIn, leavesAgentToRun } from "../run/plan-agents.js";
import { checkRepository, claudeRunner } from "../run/runner.js";
import { findWorkspace, prepareWhillyDir } from "../store/workspace-root.js";

/** The most claim slots `--concurrency` takes: each runs an agent, a process group and a worktree. */
export const MAX_CONCURRENCY = 32;

/**
 * `whilly run <file | --plan ID>`: run every ready task of a plan with Claude Code, up to
 * `--concurrency` at once, each in its own git worktree (in place outside a repository).
 */
export function runCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "run [file]",
    "Run a plan's tasks with Claude Code (or the agent each names) in dependency and priority order",
    (a) =>
      a
        .positional("file", {
          type: "string",
          describe: "plan file to import (or resume, if already stored)",
        })
        .option("plan", { type: "string", describe: "id of a stored plan to run (instead of a file)" })
        .option("concurrency", {
          alias: "j",
          type: "string",
          describe: "run up to N ready tasks at once, each in its own git worktree (default 1)",
        })
        .option("branch", {
          type: "string",
          describe: "integration branch the plan's work is merged into (default whilly/<plan-slug>)",
        })
        .option("setup", {
          type: "string",
          describe:
            "command run in each new worktree before the agent, e.g. 'npm ci' (else the plan's setup)",
        })
        .option("verify", {
          type: "string",
          array: true,
          describe:
            "check run after each attempt and on the merged tree, e.g. 'npm test'; repeatable (else the plan's verify)",
        })
        .option("verify-timeout", {
          type: "string",
          default: DEFAULT_VERIFY_TIMEOUT,
          describe: "stop one check after this long: 90s, 10m (bare number: seconds)",
        })
        .option("max-attempts", {
          type: "string",
          describe: `attempts per task before it is FAILED, 1 to ${MAX_MAX_ATTEMPTS} (stored as the plan's; default the plan's, else 3)`,
        })
        .option("task-timeout", {
          type: "string",
          default: DEFAULT_TASK_TIMEOUT,
          describe: "kill the agent after this long per task: 90s, 30m, 1h (bare number: seconds)",
        })
        .option("stall-timeout", {
          type: "string",
          default: DEFAULT_STALL_TIMEOUT,
          describe: "end an attempt whose agent printed nothing for this long (stalled)",
        })
        .option("wait", {
          type: "boolean",
          default: true,
          describe:
            "wait out provider limits and retry backoffs; --no-wait exits 75 when only such work is left",
        })
        .option("max-tasks", {
          type: "string",
          describe:
            "stop after this many attempts finished, a failed one that will be retried included (exit 0 when they are all DONE; run again to continue)",
        })
        .option("agent", {
          type: "string",
          describe: "the agent for tasks whose plan names none: claude, cmd (default claude)",
        })
        .option("model", { type: "string", describe: "that agent's model (default: the agent's own)" })
        .option("force-agent", {
          type: "string",
          describe: "run every task on this agent, whatever the plan says",
        })
        .option("force-model", { type: "string", describe: "run every task with this model" })
        .option("agent-cmd", {
          type: "string",
          describe:
            "the cmd agent's command (WHILLY_AGENT_CMD), e.g. 'my-agent --prompt-file {prompt_file} --model {model}'; never run through a shell",
        })
        .option("tags", {
          type: "string",
          describe: "tags this machine has (gpu,macos): tasks requiring them run here",
        })
        .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" })
        .option("ui", {
          type: "boolean",
          default: false,
          describe:
            "serve the web dashboard on 127.0.0.1 while the run goes; prints a one-time sign-in link on stderr",
        })
        .option("port", {
          type: "string",
          describe: "the dashboard's port with --ui (0: any free port; default WHILLY_UI_PORT, else 0)",
        }),
    async (args) => {
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
    },
  );
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
