import { EVENT_TYPES, evaluateGate, type PlanSpec, VersionConflict } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { importProgress } from "../../import-progress.js";
import { printWarning } from "../../io.js";
import { readPlanFile } from "../../plan-file.js";
import { describeImport, importJson, warnAboutImport } from "./import.js";

/**
 * `whilly plan apply <file> [--strict]`: import, then run the decision gate on every task. REJECTs are
 * warned, or with `--strict` skipped (`task.skipped`). Ends with one `plan.applied` event.
 */
export function applyCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "apply <file>",
    "Import a plan file and run the decision gate on its tasks",
    (a) =>
      a
        .positional("file", {
          type: "string",
          demandOption: true,
          describe: "path of a tasks.json plan file",
        })
        .option("strict", { type: "boolean", default: false, describe: "skip tasks the gate rejects" })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      const plan = await readPlanFile(args.file, ctx.io.cwd, (m) => printWarning(ctx.io, m));
      const store = await ctx.store();
      const result = await store.importPlan(plan, importProgress(ctx.io, plan.id));
      warnAboutImport(ctx, result);
      const { warned, skipped } = await gatePlan(ctx, plan, args.strict);
      await store.appendEvent({
        planId: plan.id,
        eventType: EVENT_TYPES.planApplied,
        payload: {
          tasks_count: plan.tasks.length,
          skipped_count: skipped.length,
          warned_count: warned.length,
          strict: args.strict,
        },
      });
      if (args.json) {
        ctx.io.out.write(
          `${JSON.stringify({ ...importJson(result), skipped, warned, strict: args.strict }, null, 2)}\n`,
        );
        return;
      }
      let line = describeImport("applied", result, plan.tasks.length);
      if (skipped.length > 0) line += ` --strict skipped ${skipped.length} task(s): ${skipped.join(", ")}.`;
      else if (warned.length > 0)
        line += ` ${warned.length} task(s) failed the decision gate (see warnings above).`;
      ctx.io.out.write(`${line}\n`);
    },
  );
}

/**
 * Runs the decision gate on every task of `plan`: a REJECT is warned about, or with `strict` the task is
 * skipped. Tasks already SKIPPED stay so and are not counted again.
 * @returns the ids warned about and the ids skipped now.
 */
async function gatePlan(ctx: CliContext, plan: PlanSpec, strict: boolean) {
  const store = await ctx.store();
  const stored = new Map((await store.listTasks(plan.id)).map((t) => [t.id, t.status]));
  const warned: string[] = [];
  const skipped: string[] = [];
  for (const task of plan.tasks) {
    const verdict = evaluateGate(task);
    if (verdict.kind === "ALLOW") continue;
    const status = stored.get(task.id);
    if (!strict || status === "SKIPPED") {
      if (status !== "SKIPPED") warned.push(task.id);
      printWarning(
        ctx.io,
        `decision_gate task='${task.id}' missing=[${verdict.missing.join(", ")}]${tooShortField(verdict.tooShort)} reason='${verdict.reason}'`,
      );
      continue;
    }
    try {
      await store.skipTask({
        planId: plan.id,
        taskId: task.id,
        reason: "decision_gate_failed",
        detail: {
          missing: [...verdict.missing],
          ...(verdict.tooShort.length > 0 ? { too_short: [...verdict.tooShort] } : {}),
        },
      });
      skipped.push(task.id);
    } catch (error) {
      if (!(error instanceof VersionConflict)) throw error;
      warned.push(task.id);
      printWarning(
        ctx.io,
        `decision_gate could not skip task '${task.id}': it is ${error.actualStatus}; left as is`,
      );
    }
  }
  return { warned, skipped };
}

/**
 * ` too_short=[…]` after whilly 4.x's `missing=[…]` (kept as it was, since scripts parse the line), or
 * nothing when no field is too short.
 */
function tooShortField(tooShort: readonly string[]): string {
  return tooShort.length > 0 ? ` too_short=[${tooShort.join(", ")}]` : "";
}
