import type { ImportResult } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { importProgress } from "../../import-progress.js";
import { printWarning } from "../../io.js";
import { readPlanFile } from "../../plan-file.js";

/** `whilly plan import <file>`: validates a plan file and stores it; idempotent on the plan id. */
export function importCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "import <file>",
    "Validate a plan file and store it (idempotent on plan_id)",
    (a) =>
      a
        .positional("file", {
          type: "string",
          demandOption: true,
          describe: "path of a tasks.json plan file",
        })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      const plan = await readPlanFile(args.file, ctx.io.cwd, (m) => printWarning(ctx.io, m));
      const store = await ctx.store();
      const result = await store.importPlan(plan, importProgress(ctx.io, plan.id));
      warnAboutImport(ctx, result);
      if (args.json) ctx.io.out.write(`${JSON.stringify(importJson(result), null, 2)}\n`);
      else ctx.io.out.write(`${describeImport("imported", result, plan.tasks.length)}\n`);
    },
  );
}

/** Warns about stored tasks the file changes and about statuses demoted to PENDING. */
export function warnAboutImport(ctx: CliContext, result: ImportResult): void {
  if (result.changed.length > 0) {
    printWarning(
      ctx.io,
      `plan '${result.plan.id}' is already stored and the file differs for ${result.changed.length} task(s): ${result.changed.join(", ")}; the stored tasks were kept (whilly plan reset '${result.plan.id}' --hard --yes, then import again, to replace them)`,
    );
  }
  if (result.planChanged.length > 0) {
    printWarning(
      ctx.io,
      `plan '${result.plan.id}' is already stored and the file's ${result.planChanged.join(", ")} differ; the stored plan's were kept (whilly plan reset '${result.plan.id}' --hard --yes, then import again, to replace them)`,
    );
  }
  if (result.demotedToPending.length > 0) {
    printWarning(
      ctx.io,
      `imported as PENDING, since no worker holds them: ${result.demotedToPending.join(", ")} (the file says CLAIMED or IN_PROGRESS)`,
    );
  }
}

/** One line saying what an import did, e.g. `imported plan 'demo' (4 tasks: 4 new).` */
export function describeImport(verb: string, result: ImportResult, total: number): string {
  const parts = [`${result.inserted.length} new`];
  const kept = result.unchanged.length + result.changed.length;
  if (kept > 0) parts.push(`${kept} already stored`);
  return `${verb} plan '${result.plan.id}' (${total} task${total === 1 ? "" : "s"}: ${parts.join(", ")}).`;
}

/** The JSON form of an import result. */
export function importJson(result: ImportResult) {
  return {
    plan_id: result.plan.id,
    plan_created: result.planCreated,
    inserted: result.inserted,
    unchanged: result.unchanged,
    changed: result.changed,
    demoted_to_pending: result.demotedToPending,
  };
}
