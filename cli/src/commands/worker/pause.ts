import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { controlActionsFor } from "../../control/choose.js";
import { textFlag } from "../../options.js";

const CONNECT = {
  type: "string",
  describe: "act on this control plane (WHILLY_ADMIN_TOKEN) instead of the store",
} as const;

/**
 * `whilly worker pause [--connect URL]`: every worker, also one that registers later, finishes the task
 * it runs and claims nothing until `whilly worker resume`. On the store this CLI uses, or on a control
 * plane with the admin token. Pausing paused workers changes nothing. docs/cli.md describes it.
 */
export function pauseCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "pause",
    "Pause every worker: each finishes its current task and claims nothing until resumed",
    (a) => a.option("connect", CONNECT),
    async (args) => {
      const actions = await controlActionsFor(ctx, textFlag(args.connect, "--connect"));
      await actions.pauseWorkers();
      ctx.io.out.write(
        "workers paused: each finishes its current task and claims nothing until `whilly worker resume`.\n",
      );
    },
  );
}

/** `whilly worker resume [--connect URL]`: lifts `whilly worker pause`; parked claims look again at once. */
export function resumeCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "resume",
    "Resume paused workers",
    (a) => a.option("connect", CONNECT),
    async (args) => {
      const actions = await controlActionsFor(ctx, textFlag(args.connect, "--connect"));
      await actions.resumeWorkers();
      ctx.io.out.write("workers resumed: they claim tasks again.\n");
    },
  );
}
