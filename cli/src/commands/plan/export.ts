import { exportPlan, PlanNotFound } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";

/** `whilly plan export <plan_id>`: canonical JSON of the stored plan on stdout (sorted keys, tasks by id). */
export function exportCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "export <plan_id>",
    "Print a stored plan as canonical JSON",
    (a) => a.positional("plan_id", { type: "string", demandOption: true }),
    async (args) => {
      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const tasks = await store.listTasks(plan.id);
      ctx.io.out.write(exportPlan(plan, tasks));
      ctx.io.err.write(
        `exported plan '${plan.id}' (${tasks.length} task${tasks.length === 1 ? "" : "s"}).\n`,
      );
    },
  );
}
