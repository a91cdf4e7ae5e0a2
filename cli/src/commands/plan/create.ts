import { displayUsd, InvalidInput, idProblem } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { printWarning } from "../../io.js";
import { parseBudget } from "./budget-amount.js";

/** `whilly plan create --id <id> --name <name> [--budget USD]`: an empty plan with an optional spend cap. */
export function createCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "create",
    "Create an empty plan, optionally with a spend cap",
    (a) =>
      a
        .option("id", { type: "string", demandOption: true, describe: "plan id" })
        .option("name", { type: "string", demandOption: true, describe: "plan name" })
        .option("budget", { type: "string", describe: "spend cap in USD, e.g. 5.00 (default: unlimited)" }),
    async (args) => {
      const budgetMicroUsd = args.budget === undefined ? undefined : parseBudget(args.budget, "--budget");
      // The same rule as a plan file's plan_id, so a created plan exports and imports again.
      const problem = idProblem(args.id);
      if (problem !== undefined)
        throw new InvalidInput("--id", `--id ${problem}`, { hint: "e.g. --id my-plan" });
      const store = await ctx.store();
      const { created, plan } = await store.createPlan({ id: args.id, name: args.name, budgetMicroUsd });
      if (!created) {
        printWarning(
          ctx.io,
          `plan '${plan.id}' already exists; nothing changed${args.budget === undefined ? "" : " (--budget not applied)"}`,
        );
        return;
      }
      const budget = plan.budgetMicroUsd === undefined ? "unlimited" : displayUsd(plan.budgetMicroUsd);
      ctx.io.out.write(`created plan '${plan.id}' ('${plan.name}', budget ${budget}).\n`);
    },
  );
}
