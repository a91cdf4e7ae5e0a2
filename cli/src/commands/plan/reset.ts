import { PlanNotFound } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/**
 * `whilly plan reset <plan_id> (--keep-tasks | --hard) [--yes]`: every task back to PENDING (audit log
 * kept), or the plan deleted. Asks first on a terminal; without a terminal `--yes` is required.
 */
export function resetCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "reset <plan_id>",
    "Reset every task to PENDING (--keep-tasks) or delete the plan (--hard)",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("keep-tasks", { type: "boolean", default: false, describe: "set every task back to PENDING" })
        .option("hard", {
          type: "boolean",
          default: false,
          describe: "delete the plan, its tasks and events",
        })
        .option("yes", { type: "boolean", default: false, describe: "do not ask for confirmation" }),
    async (args) => {
      if (args.keepTasks === args.hard) throw new UsageError("choose exactly one of --keep-tasks and --hard");
      const mode = args.hard ? "hard" : "keep_tasks";
      const store = await ctx.store();
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const taskCount = (await store.listTasks(plan.id)).length;
      if (
        !args.yes &&
        !(await confirmReset(
          ctx,
          `${mode === "hard" ? "DELETE" : "RESET"} plan '${plan.id}' (${plan.name}): ${taskCount} task(s), mode=${mode}. Continue? [y/N] `,
        ))
      ) {
        ctx.io.err.write("aborted; nothing changed.\n");
        return;
      }
      const affected = await store.resetPlan(plan.id, mode);
      const verb = mode === "hard" ? "deleted" : "reset";
      ctx.io.out.write(`${verb} plan '${plan.id}' (${affected} task${affected === 1 ? "" : "s"}).\n`);
    },
  );
}

/** Asks on a terminal. @throws {UsageError} when there is no terminal to ask on. */
async function confirmReset(ctx: CliContext, question: string): Promise<boolean> {
  if (!ctx.io.confirm) throw new UsageError("not a terminal: pass --yes to reset without asking");
  return ctx.io.confirm(question);
}
