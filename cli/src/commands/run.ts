import { checkAgentBin, createClaudeAttempt, parseClaudeSettings } from "@whilly/agent";
import { DEFAULT_TASK_TIMEOUT, parseDuration } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { wholeNumberOption } from "../options.js";
import { runLocal } from "../run/local-run.js";
import { findWorkspace, prepareWhillyDir } from "../store/workspace-root.js";

/** `whilly run <file | --plan ID>`: run every ready task of a plan with Claude Code, one at a time. */
export function runCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "run [file]",
    "Run a plan's tasks with Claude Code in dependency and priority order",
    (a) =>
      a
        .positional("file", {
          type: "string",
          describe: "plan file to import (or resume, if already stored)",
        })
        .option("plan", { type: "string", describe: "id of a stored plan to run (instead of a file)" })
        .option("task-timeout", {
          type: "string",
          default: DEFAULT_TASK_TIMEOUT,
          describe: "kill the agent after this long per task: 90s, 30m, 1h (bare number: seconds)",
        })
        .option("max-tasks", {
          type: "string",
          describe:
            "stop after this many tasks finished (exit 0 when they are all DONE; run again to continue)",
        })
        .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" }),
    async (args) => {
      if (args.file === undefined && args.plan === undefined) {
        throw new UsageError("name a plan file or --plan ID", {
          hint: "e.g. whilly run examples/demo.tasks.json",
        });
      }
      const taskTimeoutMs = parseDuration(args.taskTimeout);
      if (taskTimeoutMs === undefined) {
        throw new UsageError(
          `--task-timeout must be a duration like 90s, 30m or 1h; got '${args.taskTimeout}'`,
          { hint: "a number with s, m or h, or a bare number of seconds, e.g. --task-timeout 45m" },
        );
      }
      const maxTasks = wholeNumberOption(args.maxTasks, "--max-tasks", {
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
      });
      const claude = parseClaudeSettings(ctx.io.env);
      // Before the store is opened: a missing agent would fail every task claimed, one after another.
      checkAgentBin(claude.claudeBin, ctx.io.env, ctx.io.cwd);
      // A stored plan is run only from a store that exists; a file may start a new one.
      if (args.file === undefined) await ctx.store({ mustExist: true });
      // Running attempts are recorded in .whilly/, so the next run can end what a kill -9 left running.
      const workspace = findWorkspace(ctx.io.cwd);
      const stateDir = workspace.whillyDir;
      ctx.exitCode = await runLocal(ctx, {
        file: args.file,
        planId: args.plan,
        maxTasks,
        json: args.json,
        stateDir,
        prepareStateDir: () => prepareWhillyDir(workspace),
        makeRunAttempt: (cwd) =>
          createClaudeAttempt({
            settings: claude,
            cwd,
            timeoutMs: taskTimeoutMs,
            env: ctx.io.env,
            secrets: ctx.settings.secrets,
            stateDir,
          }),
      });
    },
  );
}
