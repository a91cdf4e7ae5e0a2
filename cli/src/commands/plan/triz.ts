import {
  analyzePlanTriz,
  EXIT,
  PlanNotFound,
  renderTrizReport,
  type TrizSeverity,
  type TrizVerdict,
  trizReportJson,
} from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { painter, type Style } from "../../io.js";

const TONE: Record<TrizVerdict | TrizSeverity, Style> = {
  reject: "red",
  critical: "red",
  revise: "yellow",
  high: "yellow",
  medium: "yellow",
  approve: "green",
  low: "cyan",
};

/**
 * `whilly plan triz <plan_id>`: the TRIZ preflight of a stored plan (docs/triz.md), with no model call:
 * a readable report, or with `--json` the report as JSON. Exits 2 when the plan or the store is
 * missing, 1 with `--strict` unless the verdict is `approve`, else 0.
 */
export function trizCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "triz <plan_id>",
    "Check a plan's structure for contradictions, duplicates and weak tasks (no model call)",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("json", { type: "boolean", default: false, describe: "print the report as JSON" })
        .option("strict", {
          type: "boolean",
          default: false,
          describe: "exit 1 unless the verdict is approve",
        })
        .option("color", {
          type: "boolean",
          default: true,
          describe: "colour the verdict and severities (--no-color; NO_COLOR)",
        }),
    async (args) => {
      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const report = analyzePlanTriz({ id: plan.id, tasks: await store.listTasks(plan.id) });
      if (args.json) {
        ctx.io.out.write(`${JSON.stringify(trizReportJson(report), null, 2)}\n`);
      } else {
        const paint = painter(ctx.io.out, ctx.io.env, !args.color);
        ctx.io.out.write(renderTrizReport(report, (tone, text) => paint(TONE[tone], text)));
      }
      if (args.strict && report.verdict !== "approve") ctx.exitCode = EXIT.failed;
    },
  );
}
