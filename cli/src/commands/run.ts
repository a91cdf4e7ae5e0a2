import type { Argv } from "yargs";
import type { CliContext } from "../context.js";
import { runOptions } from "./run-options.js";

/**
 * `whilly run <file | --plan ID>`: run every ready task of a plan with Claude Code, up to
 * `--concurrency` at once, each in its own git worktree (in place outside a repository).
 */
export function runCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "run [file]",
    "Run a plan's tasks with Claude Code (or the agent each names) in dependency and priority order",
    runOptions,
    async (args) => {
      // The agents, the runner and the store load only when a run starts.
      const { runPlan } = await import("./run-handler.js");
      await runPlan(ctx, args);
    },
  );
}
