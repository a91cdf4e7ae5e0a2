import {
  allowedFrom,
  EVENT_TYPES,
  type ImportOptions,
  type ImportResult,
  type JsonObject,
  joinInstructions,
  PlanInvalid,
  type PlanIssue,
  type PlanSpec,
  readStoredInstructions,
  type TaskSpec,
  type TaskStatus,
  targetOf,
} from "@whilly/core";
import { plans, taskDeps, tasks } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import { insertEvents } from "../events/insert-events.js";
import { LEASED } from "../lease.js";
import { signalReady } from "../ready/signal-ready.js";
import { type PlanRow, type TaskRow, toNumeric, toPlanRecord } from "../rows.js";
import { assertStorable } from "../text.js";
import { lockPlan } from "./add-spend.js";
import { assertAmount } from "./create-plan.js";
import {
  assertIssuePlan,
  assertIssueRefFree,
  originColumns,
  originDifferences,
  planCreatedEvents,
} from "./plan-origin.js";
import { jsonEqual, sameTaskSpec } from "./same-task-spec.js";
import { assertMaxAttempts } from "./set-max-attempts.js";

/** Rows per INSERT, keeping 20-odd parameters a row well under Postgres's 65,535-parameter limit. */
const TASK_BATCH = 500;
const EDGE_BATCH = 5000;

/**
 * Stores a validated plan file (call inside a transaction). The plan is created when absent (with one
 * `plan.created` event when the file records its origin or issue); a plan made empty by `plan create`
 * takes the file's `agent_instructions`, extra fields, issue and origin. A file naming a GitHub issue
 * that a plan already has is that plan's import: idempotent like an existing id. Tasks the plan does
 * not hold yet are inserted with one `task.created` `{priority, dependencies}` event each; an imported
 * `CLAIMED` or `IN_PROGRESS` becomes `PENDING`, since no worker holds it. Stored tasks are left as they
 * are (status, version and spend are queue state) and reported as changed when the file's spec differs.
 * `options.budgetMicroUsd` is the budget of a plan this import creates (a stored plan keeps its own);
 * with `options.createOnly` a stored plan is left as it is and no task is added to it.
 * A new task's unfinished-dependency counter counts its dependencies that are not `DONE`, stored or new;
 * the plan row lock keeps a concurrent complete from changing a stored dependency meanwhile.
 * @throws {PlanInvalid} when a dependency is neither in the file nor stored.
 * @throws {PlanConflict} when the file's issue belongs to a plan with another id.
 * @throws {InvalidInput} for text Postgres cannot store (named by field).
 */
export async function importPlan(tx: Db, plan: PlanSpec, options: ImportOptions = {}): Promise<ImportResult> {
  assertPlanStorable(plan);
  assertAmount("budgetMicroUsd", options.budgetMicroUsd);
  const [inserted] = await tx
    .insert(plans)
    .values(planColumns(plan, options))
    // No target: a plan that already has the id, or the file's GitHub issue, stores nothing.
    .onConflictDoNothing()
    .returning();
  if (!inserted && options.createOnly === true) return untouched(await storedPlan(tx, plan, options));
  const { row: planRow, changed: planChanged } = inserted
    ? { row: inserted, changed: [] }
    : await existingPlan(tx, plan, options);

  const stored = await tx.select().from(tasks).where(eq(tasks.planId, plan.id));
  const storedById = new Map<string, TaskRow>(stored.map((row) => [row.id, row]));
  const fresh = plan.tasks.filter((task) => !storedById.has(task.id));
  const demoted = fresh.filter((task) => LEASED.includes(task.status)).map((task) => task.id);
  const statusOf = new Map<string, TaskStatus>(stored.map((row) => [row.id, row.status as TaskStatus]));
  for (const task of fresh) statusOf.set(task.id, initialStatus(task));
  assertDependenciesKnown(plan, fresh, statusOf);

  await insertTasks(tx, plan.id, fresh, statusOf, options.onProgress);
  if (fresh.some((task) => isReady(task, statusOf))) await signalReady(tx, [plan.id]);
  await insertEvents(tx, [
    ...(inserted ? planCreatedEvents(plan) : []),
    ...fresh.map((task) => ({
      planId: plan.id,
      taskId: task.id,
      eventType: EVENT_TYPES.taskCreated,
      payload: { priority: task.priority, dependencies: [...task.dependencies] },
    })),
  ]);

  const changed: string[] = [];
  const unchanged: string[] = [];
  for (const task of plan.tasks) {
    const row = storedById.get(task.id);
    if (row) (sameTaskSpec(row, task) ? unchanged : changed).push(task.id);
  }
  return {
    plan: toPlanRecord(planRow),
    planCreated: inserted !== undefined,
    inserted: fresh.map((task) => task.id),
    unchanged,
    changed,
    demotedToPending: demoted,
    planChanged,
  };
}

/** The plans row a new plan gets. */
function planColumns(plan: PlanSpec, options: ImportOptions) {
  return {
    id: plan.id,
    name: plan.name,
    agentInstructions: copyInstructions(plan),
    extra: plan.extra,
    reserveUsd: plan.reserveMicroUsd === undefined ? null : toNumeric(plan.reserveMicroUsd),
    budgetUsd: options.budgetMicroUsd === undefined ? null : toNumeric(options.budgetMicroUsd),
    ...attemptSettings(plan),
    ...originColumns(plan),
  };
}

/**
 * The stored plan a file names again, locked: checked against the file's issue, its reservation set from
 * the file, its context filled in when it was a blank plan; `changed` lists what the file says otherwise.
 */
async function existingPlan(
  tx: Db,
  plan: PlanSpec,
  options: ImportOptions,
): Promise<{ row: PlanRow; changed: string[] }> {
  const row = await storedPlan(tx, plan, options);
  // A file's `reserve_usd` is the operator's latest word on the reservation (docs/claim.md).
  if (plan.reserveMicroUsd !== undefined) {
    await tx
      .update(plans)
      .set({ reserveUsd: toNumeric(plan.reserveMicroUsd) })
      .where(eq(plans.id, plan.id));
  }
  if (isBlank(row)) return { row: await fillPlanContext(tx, plan), changed: [] };
  return { row, changed: planDifferences(row, plan) };
}

/** The stored plan a file names again, locked, after checking the file's issue may name it. */
async function storedPlan(tx: Db, plan: PlanSpec, options: ImportOptions): Promise<PlanRow> {
  await assertIssueRefFree(tx, plan);
  const row = await lockPlan(tx, plan.id);
  if (options.issuePlanOnly) assertIssuePlan(row, plan);
  return row;
}

/** The answer of a `createOnly` import that found the plan stored: nothing written. */
function untouched(row: PlanRow): ImportResult {
  return {
    plan: toPlanRecord(row),
    planCreated: false,
    inserted: [],
    unchanged: [],
    changed: [],
    demotedToPending: [],
    planChanged: [],
  };
}

/** The file's plan-level fields, by their file names, that say something else than the stored plan. */
function planDifferences(row: PlanRow, plan: PlanSpec): string[] {
  const differs: string[] = [];
  if (row.name !== plan.name) differs.push("project");
  if (!jsonEqual(storedInstructions(row), copyInstructions(plan))) differs.push("agent_instructions");
  if (!jsonEqual(row.verify, [...(plan.verify ?? [])])) differs.push("verify");
  if ((row.setup ?? undefined) !== plan.setup) differs.push("setup");
  if ((row.maxAttempts ?? undefined) !== plan.maxAttempts) differs.push("max_attempts");
  if ((row.agent ?? undefined) !== plan.agent) differs.push("agent");
  if ((row.model ?? undefined) !== plan.model) differs.push("model");
  if (!jsonEqual(row.fallbackAgents, [...(plan.fallbackAgents ?? [])])) differs.push("fallback_agents");
  differs.push(...originDifferences(row, plan));
  if (!jsonEqual(row.extra, plan.extra)) differs.push("other plan fields");
  return differs;
}

/** The status a new task is stored with: a claim in the file has no owner here, so it is released. */
function initialStatus(task: TaskSpec): TaskStatus {
  return LEASED.includes(task.status) ? targetOf("RELEASE") : task.status;
}

async function insertTasks(
  tx: Db,
  planId: string,
  fresh: readonly TaskSpec[],
  statusOf: ReadonlyMap<string, TaskStatus>,
  onProgress: ImportOptions["onProgress"],
): Promise<void> {
  const rows = fresh.map((task) => ({
    planId,
    id: task.id,
    status: initialStatus(task),
    priority: task.priority,
    description: task.description,
    dependencies: [...task.dependencies],
    keyFiles: [...task.keyFiles],
    acceptanceCriteria: [...task.acceptanceCriteria],
    testSteps: [...task.testSteps],
    prdRequirement: task.prdRequirement,
    extra: task.extra,
    version: task.version,
    maxAttempts: task.maxAttempts ?? null,
    agent: task.agent ?? null,
    model: task.model ?? null,
    requiredTags: [...(task.requiredTags ?? [])],
    unfinishedDeps: uniqueDeps(task).filter((dep) => statusOf.get(dep) !== "DONE").length,
  }));
  for (let i = 0; i < rows.length; i += TASK_BATCH) {
    await tx.insert(tasks).values(rows.slice(i, i + TASK_BATCH));
    onProgress?.(Math.min(i + TASK_BATCH, rows.length), rows.length);
  }
  const edges = fresh.flatMap((task) =>
    uniqueDeps(task).map((dep) => ({ planId, taskId: task.id, dependsOn: dep })),
  );
  for (let i = 0; i < edges.length; i += EDGE_BATCH) {
    await tx.insert(taskDeps).values(edges.slice(i, i + EDGE_BATCH));
  }
}

/** A new task a worker may claim at once: claimable status and every dependency `DONE`. */
function isReady(task: TaskSpec, statusOf: ReadonlyMap<string, TaskStatus>): boolean {
  return (
    allowedFrom("CLAIM").includes(initialStatus(task)) &&
    task.dependencies.every((dep) => statusOf.get(dep) === "DONE")
  );
}

function uniqueDeps(task: TaskSpec): string[] {
  return [...new Set(task.dependencies)];
}

function assertDependenciesKnown(
  plan: PlanSpec,
  fresh: readonly TaskSpec[],
  statusOf: ReadonlyMap<string, TaskStatus>,
): void {
  const issues: PlanIssue[] = [];
  for (const task of fresh) {
    for (const dep of task.dependencies) {
      if (dep === task.id || !statusOf.has(dep)) {
        issues.push({
          path: `tasks[${task.id}].dependencies`,
          taskId: task.id,
          message:
            dep === task.id
              ? `task '${task.id}' depends on itself`
              : `task '${task.id}' depends on unknown task '${dep}'`,
        });
      }
    }
  }
  if (issues.length > 0) throw new PlanInvalid(`plan '${plan.id}'`, issues);
}

function assertPlanStorable(plan: PlanSpec): void {
  assertStorable(plan.id, "plan_id");
  assertStorable(plan.name, "project");
  assertStorable(copyInstructions(plan), "agent_instructions");
  assertStorable(plan.extra, "plan");
  assertStorable(originColumns(plan).origin, "origin");
  for (const task of plan.tasks) {
    const at = `tasks[${JSON.stringify(task.id)}]`;
    assertStorable(task.id, `${at}.id`);
    assertStorable(task.description, `${at}.description`);
    assertStorable(task.prdRequirement, `${at}.prd_requirement`);
    assertStorable([...task.dependencies], `${at}.dependencies`);
    assertStorable([...task.keyFiles], `${at}.key_files`);
    assertStorable([...task.acceptanceCriteria], `${at}.acceptance_criteria`);
    assertStorable([...task.testSteps], `${at}.test_steps`);
    assertStorable(task.extra, at);
    assertMaxAttempts(`${at}.max_attempts`, task.maxAttempts);
  }
  assertStorable([...(plan.verify ?? [])], "verify");
  if (plan.setup !== undefined) assertStorable(plan.setup, "setup");
  assertMaxAttempts("max_attempts", plan.maxAttempts);
}

/** The file's checks, setup command, attempt limit and agent choice, as the plan row stores them. */
function attemptSettings(plan: PlanSpec) {
  return {
    verify: [...(plan.verify ?? [])],
    setup: plan.setup ?? null,
    maxAttempts: plan.maxAttempts ?? null,
    agent: plan.agent ?? null,
    model: plan.model ?? null,
    fallbackAgents: [...(plan.fallbackAgents ?? [])],
  };
}

/** The file's `agent_instructions` as stored: every key with lines, and every kept value. */
function copyInstructions(plan: PlanSpec): JsonObject {
  return joinInstructions(plan.agentInstructions, plan.keptInstructions);
}

/** A stored `agent_instructions` in the same form, so an empty list stored by older releases reads as none. */
function storedInstructions(row: PlanRow): JsonObject {
  const { lines, kept } = readStoredInstructions(row.agentInstructions);
  return joinInstructions(lines, kept);
}

/** A plan made by `plan create`: no instructions, checks, setup or extra fields yet. */
function isBlank(row: PlanRow): boolean {
  return (
    Object.keys(storedInstructions(row)).length === 0 &&
    Object.keys(row.extra).length === 0 &&
    row.verify.length === 0 &&
    row.setup === null &&
    row.agent === null &&
    row.model === null &&
    row.fallbackAgents.length === 0 &&
    row.githubIssueRef === null &&
    row.origin === null
  );
}

async function fillPlanContext(tx: Db, plan: PlanSpec): Promise<PlanRow> {
  const [row] = await tx
    .update(plans)
    .set({
      agentInstructions: copyInstructions(plan),
      extra: plan.extra,
      ...attemptSettings(plan),
      ...originColumns(plan),
      // An attempt limit `--max-attempts` stored stays unless the file names one.
      ...(plan.maxAttempts === undefined ? { maxAttempts: undefined } : {}),
    })
    .where(eq(plans.id, plan.id))
    .returning();
  if (!row) throw new Error(`plan '${plan.id}' vanished while locked`);
  return row;
}
