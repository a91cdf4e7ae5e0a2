import { PlanNotFound } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/**
 * `whilly plan reset <plan_id> (--keep-tasks | --failed | --hard) [--yes]`: every task back to PENDING
 * (audit log kept), only the FAILED ones (a retry), or the plan deleted. Asks first on a terminal;
 * without a terminal `--yes` is required.
 */
export function resetCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "reset <plan_id>",
    "Reset every task to PENDING (--keep-tasks), retry the FAILED ones (--failed), or delete the plan (--hard)",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("keep-tasks", { type: "boolean", default: false, describe: "set every task back to PENDING" })
        .option("failed", {
          type: "boolean",
          default: false,
          describe: "set only FAILED tasks back to PENDING, to run them again",
        })
        .option("hard", {
          type: "boolean",
          default: false,
          describe: "delete the plan, its tasks and events",
        })
        .option("yes", {
          type: "boolean",
          default: false,
          describe: "do not ask for confirmation (required when stdin is not a terminal)",
        }),
    async (args) => {
      const mode = resetMode(args);
      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const tasks = await store.listTasks(plan.id);
      const taskCount = mode === "failed" ? tasks.filter((t) => t.status === "FAILED").length : tasks.length;
      if (
        !args.yes &&
        !(await confirmReset(
          ctx,
          `whilly plan reset '${plan.id}' --${mode === "keep_tasks" ? "keep-tasks" : mode} --yes`,
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

/**
 * Asks on a terminal. @param unattended the same command with `--yes`, for the hint.
 * @throws {UsageError} when there is no terminal to ask on.
 */
async function confirmReset(ctx: CliContext, unattended: string, question: string): Promise<boolean> {
  if (!ctx.io.confirm) {
    throw new UsageError("not a terminal: pass --yes to reset without asking", {
      hint: `to reset from a script, confirm on the command line: ${unattended}`,
    });
  }
  return ctx.io.confirm(question);
}

/** The one mode the flags name. @throws {UsageError} unless exactly one is given. */
function resetMode(flags: {
  keepTasks: boolean;
  failed: boolean;
  hard: boolean;
}): "keep_tasks" | "failed" | "hard" {
  const chosen = [flags.keepTasks, flags.failed, flags.hard].filter(Boolean).length;
  if (chosen !== 1) {
    throw new UsageError("choose exactly one of --keep-tasks, --failed and --hard", {
      hint: "--keep-tasks sets every task back to PENDING, --failed only the FAILED ones, --hard deletes the plan",
    });
  }
  return flags.hard ? "hard" : flags.failed ? "failed" : "keep_tasks";
}
