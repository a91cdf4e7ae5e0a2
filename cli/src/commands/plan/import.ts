import type { ImportResult, PlanSpec, TaskmasterImport } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { importProgress } from "../../import-progress.js";
import { printWarning } from "../../io.js";
import { textFlag } from "../../options.js";
import { readPlanFile } from "../../plan-file.js";
import { readTaskmasterFile } from "../../taskmaster-file.js";

/**
 * `whilly plan import <file>`: validates a plan file and stores it; idempotent on the plan id. With
 * `--from taskmaster` the file is a Taskmaster `tasks.json`, converted first (docs/taskmaster.md).
 */
export function importCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "import <file>",
    "Validate a plan file and store it (idempotent on plan_id)",
    (a) =>
      a
        .positional("file", {
          type: "string",
          demandOption: true,
          describe: "path of a tasks.json plan file (with --from taskmaster: Taskmaster's tasks.json)",
        })
        .option("from", {
          type: "string",
          describe: "the file's format: whilly (the default) or taskmaster (.taskmaster/tasks/tasks.json)",
        })
        .option("tag", {
          type: "string",
          describe: "with --from taskmaster: the tag of a tagged file to import (default master)",
        })
        .option("plan-id", {
          type: "string",
          describe: "with --from taskmaster: the plan id (default from the project name and the tag)",
        })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      const from = importFormat(args.from);
      const tag = textFlag(args.tag, "--tag");
      const planId = textFlag(args.planId, "--plan-id");
      const warn = (m: string) => printWarning(ctx.io, m);
      let plan: PlanSpec;
      let taskmaster: TaskmasterImport | undefined;
      if (from === "taskmaster") {
        taskmaster = await readTaskmasterFile(args.file, ctx.io.cwd, { tag, planId }, warn);
        plan = taskmaster.plan;
      } else {
        const flag = tag === undefined ? (planId === undefined ? undefined : "--plan-id") : "--tag";
        if (flag !== undefined) {
          throw new UsageError(`${flag} is for Taskmaster files only`, {
            hint: `add --from taskmaster, or drop ${flag}`,
          });
        }
        plan = await readPlanFile(args.file, ctx.io.cwd, warn);
      }
      const store = await ctx.store();
      const result = await store.importPlan(plan, importProgress(ctx.io, plan.id));
      warnAboutImport(ctx, result);
      if (args.json) {
        const json = taskmaster
          ? { ...importJson(result), taskmaster: taskmasterJson(taskmaster) }
          : importJson(result);
        ctx.io.out.write(`${JSON.stringify(json, null, 2)}\n`);
      } else {
        const line = describeImport("imported", result, plan.tasks.length);
        ctx.io.out.write(`${taskmaster ? fromTaskmaster(line, taskmaster) : line}\n`);
      }
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

const FORMATS = ["whilly", "taskmaster"] as const;

/** `--from`: the file's format. @throws {UsageError} for another value. */
function importFormat(raw: unknown): (typeof FORMATS)[number] {
  const value = textFlag(raw, "--from") ?? "whilly";
  const format = FORMATS.find((f) => f === value.toLowerCase());
  if (format !== undefined) return format;
  throw new UsageError(`--from must be whilly or taskmaster; got '${value}'`, {
    hint: "e.g. whilly plan import --from taskmaster .taskmaster/tasks/tasks.json",
  });
}

/** The import line, saying which tag it took and the file's other tags. */
function fromTaskmaster(line: string, taskmaster: TaskmasterImport): string {
  const source =
    taskmaster.layout === "legacy" ? "a legacy Taskmaster file" : `Taskmaster tag '${taskmaster.tag}'`;
  const others =
    taskmaster.otherTags.length === 0
      ? ""
      : `; the file's other tags (--tag NAME imports one): ${taskmaster.otherTags.map((t) => `'${t}'`).join(", ")}`;
  return `${line.replace(/\.$/, "")} from ${source}${others}.`;
}

/** The `taskmaster` part of `--json`: the tag, the file's layout and other tags, the statuses mapped. */
function taskmasterJson(taskmaster: TaskmasterImport) {
  return {
    tag: taskmaster.tag,
    layout: taskmaster.layout,
    other_tags: taskmaster.otherTags,
    status_mappings: taskmaster.statusMappings.map((m) => ({ from: m.from, to: m.to, task_ids: m.taskIds })),
  };
}
