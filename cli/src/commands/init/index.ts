import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { textFlag } from "../../options.js";

/** `whilly init "<idea>"`: a PRD and a plan from an idea (or from a PRD file), imported into the store. */
export function initCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "init [idea..]",
    "Write a PRD for an idea, generate its plan with the model, and import it",
    (a) =>
      a
        .positional("idea", {
          type: "string",
          array: true,
          default: [],
          describe: "the idea, in a few words",
        })
        .option("slug", { type: "string", describe: "the plan id and PRD name (default: from the idea)" })
        .option("headless", {
          type: "boolean",
          describe: "write the PRD from the idea alone, without asking questions",
        })
        .option("interactive", {
          type: "boolean",
          describe: "ask the wizard's questions even when stdin is not a terminal (one line each)",
        })
        .option("from-prd", { type: "string", describe: "plan from this PRD file; no PRD is written" })
        .option("output-dir", { type: "string", default: "docs", describe: "where PRD-<slug>.md is written" })
        .option("force", {
          type: "boolean",
          describe: "write over an existing PRD-<slug>.md",
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
        .option("budget", {
          type: "string",
          describe: "the plan's spend cap in USD, e.g. 5.00 (default: unlimited)",
        })
        .conflicts("headless", "interactive")
        .conflicts("from-prd", ["headless", "interactive", "force"]),
    async (args) => {
      // The planning agent loads only when init runs.
      const { runInit } = await import("./run-init.js");
      ctx.exitCode = await runInit(ctx, {
        idea: (args.idea ?? []).map(String),
        slug: args.slug,
        headless: args.headless === true,
        interactive: args.interactive === true,
        fromPrd: args.fromPrd,
        outputDir: args.outputDir,
        force: args.force === true,
        model: args.model,
        agent: textFlag(args.agent, "--agent"),
        agentCmd: textFlag(args.agentCmd, "--agent-cmd"),
        budget: args.budget,
      });
    },
  );
}
