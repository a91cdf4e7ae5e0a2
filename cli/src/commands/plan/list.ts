import { displayUsd } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { renderTable } from "../../output/table.js";

/** `whilly plan list`: every stored plan with task counts and spend (`--json`: money as `*_usd` decimal strings). */
export function listCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "list",
    "List stored plans",
    (a) => a.option("json", { type: "boolean", default: false, describe: "print as JSON" }),
    async (args) => {
      const store = await ctx.store({ mustExist: true });
      const plans = await store.listPlans();
      if (args.json) {
        const { toPlanSummaryPayload } = await import("@whilly/worker-api");
        // The read API's own shape (`GET /api/v1/plans`), so a script reads both the same way.
        ctx.io.out.write(`${JSON.stringify(plans.map(toPlanSummaryPayload), null, 2)}\n`);
        return;
      }
      if (plans.length === 0) {
        ctx.io.err.write("no plans stored yet; whilly plan import <file> stores one.\n");
        return;
      }
      const rows = plans.map((p) => [
        p.id,
        p.name,
        String(p.taskCount),
        String(p.counts.DONE),
        String(p.counts.FAILED),
        `${displayUsd(p.spentMicroUsd)}${p.budgetMicroUsd === undefined ? "" : ` / ${displayUsd(p.budgetMicroUsd)}`}`,
      ]);
      ctx.io.out.write(renderTable(["PLAN", "NAME", "TASKS", "DONE", "FAILED", "SPENT"], rows));
    },
  );
}
