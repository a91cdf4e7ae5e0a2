import { displayUsd, type MicroUsd } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { printWarning } from "../../io.js";
import { parseBudget } from "./budget-amount.js";

/**
 * `whilly plan budget <plan_id> <USD|none> [--reserve <USD|default>]`: changes a plan's spend cap
 * (`none`: unlimited), prints the old and new budget and the spend, and writes a `plan.budget_changed`
 * event. A budget above the spend lets claims resume at once, waking parked workers. `--reserve` sets
 * what each claim reserves while the plan has a budget (`default`: the largest recent attempt cost; see
 * docs/claim.md).
 */
export function budgetCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "budget <plan_id> <budget>",
    "Change a plan's spend cap (USD, or none for unlimited)",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .positional("budget", {
          type: "string",
          demandOption: true,
          describe: "the new cap in USD, e.g. 5.00, or none for unlimited",
        })
        .option("reserve", {
          type: "string",
          describe:
            "USD each claim reserves while the plan has a budget, e.g. 0.25, or default for the largest of the last 20 attempt costs",
        }),
    async (args) => {
      const raw = args.budget;
      const budgetMicroUsd = raw.toLowerCase() === "none" ? undefined : parseBudget(raw, "<budget>");
      const reserve = args.reserve;
      const reserveMicroUsd =
        reserve === undefined
          ? undefined
          : reserve.toLowerCase() === "default"
            ? null
            : parseBudget(reserve, "--reserve");
      const store = await ctx.store({ mustExist: true });
      const { before, plan } = await store.setPlanBudget(args.plan_id, budgetMicroUsd, { reserveMicroUsd });
      const reserveNote =
        reserve === undefined
          ? ""
          : `, reserve ${plan.reserveMicroUsd === undefined ? "default" : displayUsd(plan.reserveMicroUsd)} per attempt`;
      ctx.io.out.write(
        `plan '${plan.id}' budget: ${shown(before.budgetMicroUsd)} → ${shown(plan.budgetMicroUsd)} (spent ${displayUsd(plan.spentMicroUsd)}${reserveNote}).\n`,
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
