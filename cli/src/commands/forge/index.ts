import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { WHILLY_LABELS } from "../../github/labels.js";
import { textFlag } from "../../options.js";

/** `whilly forge intake owner/repo/N`: a plan from a GitHub issue (docs/forge.md). */
export function forgeCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("forge", "Turn GitHub issues into plans", (forge) =>
    forge
      .command(
        "intake <issue_ref>",
        "Generate and store the plan of a GitHub issue (owner/repo/N), then label and comment on it",
        (a) =>
          a
            .positional("issue_ref", { type: "string", demandOption: true, describe: "owner/repo/N" })
            .option("label", {
              type: "string",
              default: WHILLY_LABELS.pending.name,
              describe: "the trigger label the issue must carry (moved to whilly-in-progress)",
            })
            .option("force", {
              type: "boolean",
              default: false,
              describe: "take a closed issue, or one without the trigger label",
            })
            .option("budget", {
              type: "string",
              describe: "the plan's spend cap in USD (default: unlimited)",
            })
            .option("agent", {
              type: "string",
              describe: "the agent that writes the plan: claude, or cmd with --agent-cmd (default claude)",
            })
            .option("agent-cmd", { type: "string", describe: "the cmd agent's command (WHILLY_AGENT_CMD)" })
            .option("model", {
              type: "string",
              describe: "the model (default: WHILLY_MODEL, else claude-opus-4-6)",
            })
            .option("output-dir", {
              type: "string",
              default: "docs",
              describe: "where PRD-<plan>.md is written",
            })
            .option("label-flip", {
              type: "boolean",
              default: true,
              describe: "label the issue (--no-label-flip leaves its labels alone)",
            })
            .option("connect", {
              type: "string",
              describe:
                "store the plan on this control plane (POST /api/v1/plans) instead of the local store",
            })
            .option("dry-run", {
              type: "boolean",
              default: false,
              describe:
                "check the store and read the issue, then stop: no model call, nothing stored or labelled",
            })
            .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
        async (args) => {
          // The intake (the agent that drafts plans) loads only when it runs.
          const { runIntake } = await import("../../forge/run-intake.js");
          ctx.exitCode = await runIntake(ctx, {
            ref: String(args.issue_ref),
            label: textFlag(args.label, "--label") ?? WHILLY_LABELS.pending.name,
            force: args.force,
            budget: textFlag(args.budget, "--budget"),
            model: textFlag(args.model, "--model"),
            agent: textFlag(args.agent, "--agent"),
            agentCmd: textFlag(args.agentCmd, "--agent-cmd"),
            outputDir: textFlag(args.outputDir, "--output-dir") ?? "docs",
            labelFlip: args.labelFlip,
            connect: textFlag(args.connect, "--connect"),
            json: args.json,
            dryRun: args.dryRun,
          });
        },
      )
      .demandCommand(1, "name a forge command: intake"),
  );
}
