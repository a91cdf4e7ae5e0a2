import { displayUsd, type MicroUsd } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { printWarning } from "../../io.js";
import { parseBudget } from "./budget-amount.js";

/**
 * `whilly plan budget <plan_id> <USD|none>`: changes a plan's spend cap (`none`: unlimited), prints the
 * old and new budget and the spend, and writes a `plan.budget_changed` event. A budget above the spend
 * lets claims resume at once, waking parked workers.
 */
export function budgetCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "budget <plan_id> <budget>",
    "Change a plan's spend cap (USD, or none for unlimited)",
    (a) =>
      a.positional("plan_id", { type: "string", demandOption: true }).positional("budget", {
        type: "string",
        demandOption: true,
        describe: "the new cap in USD, e.g. 5.00, or none for unlimited",
      }),
    async (args) => {
      const raw = args.budget.trim();
      const budgetMicroUsd = raw.toLowerCase() === "none" ? undefined : parseBudget(raw, "<budget>");
      const store = await ctx.store({ mustExist: true });
      const { before, plan } = await store.setPlanBudget(args.plan_id, budgetMicroUsd);
      ctx.io.out.write(
        `plan '${plan.id}' budget: ${shown(before.budgetMicroUsd)} → ${shown(plan.budgetMicroUsd)} (spent ${displayUsd(plan.spentMicroUsd)}).\n`,
      );
      if (plan.budgetMicroUsd !== undefined && plan.spentMicroUsd >= plan.budgetMicroUsd) {
        printWarning(
          ctx.io,
          "the spend is at or over the new budget: no task is claimed until the budget is raised above it",
        );
      }
    },
  );
}

function shown(budget: MicroUsd | undefined): string {
  return budget === undefined ? "unlimited" : displayUsd(budget);
}
