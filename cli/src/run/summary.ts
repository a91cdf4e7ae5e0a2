import {
  type BlockedTask,
  describeWaitingFor,
  displayUsd,
  EVENT_TYPES,
  type EventRecord,
  effectiveMaxAttempts,
  formatUsd,
  type PlanRecord,
  parseUsd,
  type TaskRecord,
  type TaskStatus,
  type Verification,
  type WaitingTask,
} from "@whilly/core";
import { type Io, painter } from "../io.js";
import { STATUS_STYLE } from "../output/status-style.js";
import { displayDuration, renderTable } from "../output/table.js";
import { clockTime } from "./progress.js";

/**
 * The end-of-run picture of one task. Money is micro-USD and time ms, both summed over every attempt
 * the task ever made (those before a `plan reset` included), so COST and TIME cover the same attempts.
 */
export type TaskSummary = {
  readonly id: string;
  readonly status: TaskStatus;
  readonly priority: string;
  readonly attempts: number;
  /** The task's attempt limit: its own, its plan's (`--max-attempts`), else 3. */
  readonly maxAttempts: number;
  /** How a DONE task was accepted; `unverified` when it had no check whilly could run. */
  readonly verification: Verification | undefined;
  /** For a FAILED task: the tasks it keeps blocked (its dependents, and theirs), sorted. */
  readonly blocks: readonly string[];
  /** For a FAILED task: its kept worktree, to look at or finish by hand. */
  readonly worktree: string | undefined;
  readonly costMicroUsd: number;
  readonly durationMs: number;
  /** The last failure reason in full, or what blocks a pending task; the table shortens it. */
  readonly note: string;
  /** The agent and model of the task's last finished attempt; `undefined` before one finished. */
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
};

/**
 * Where the plan's work went: the integration branch, and whether the user's branch was fast-forwarded
 * to it or the one git command that takes it.
 */
export type Integration = {
  readonly branch: string;
  readonly fastForwarded: boolean;
  /** When not fast-forwarded: e.g. `git merge --ff-only whilly/demo`; none when HEAD holds the work. */
  readonly command?: string | undefined;
  /** When not fast-forwarded: why, e.g. `main moved since the run started`. */
  readonly why?: string | undefined;
  /**
   * Paths of the user's own working tree (repository-relative) that changed while the run went on:
   * agents work in worktrees, but one that writes outside its own is detected here, not prevented.
   */
  readonly userTreeChanged?: readonly string[] | undefined;
};

/** What a run knows beyond the store: kept worktrees, where the work went, tasks it cannot run. */
export type RunExtras = {
  readonly keptPath?: ((taskId: string) => string | undefined) | undefined;
  readonly integration?: Integration | undefined;
  /** Ready tasks the run's capabilities cannot run (`TaskStore.listWaiting`), and what they wait for. */
  readonly waiting?: readonly WaitingTask[] | undefined;
};

/** The end-of-run picture of a plan. `ok` is true when every task is DONE or SKIPPED. */
export type RunSummary = {
  readonly planId: string;
  readonly integration: Integration | undefined;
  readonly ok: boolean;
  readonly tasks: readonly TaskSummary[];
  readonly counts: Readonly<Record<TaskStatus, number>>;
  readonly spentMicroUsd: number;
  readonly budgetMicroUsd: number | undefined;
  readonly budgetExhausted: boolean;
};

/** Builds the summary from stored tasks, blocked tasks and the plan's events. */
export function summarizeRun(
  plan: PlanRecord,
  tasks: readonly TaskRecord[],
  blocked: readonly BlockedTask[],
  events: readonly EventRecord[],
  extras: RunExtras = {},
): RunSummary {
  const { durations, reasons, ranOn } = readEvents(events);
  const blockers = new Map(blocked.map((b) => [b.taskId, b.blockedBy]));
  const waitingFor = new Map((extras.waiting ?? []).map((w) => [w.taskId, w.waitingFor]));
  const counts = { PENDING: 0, CLAIMED: 0, IN_PROGRESS: 0, DONE: 0, FAILED: 0, SKIPPED: 0 };
  const rows = tasks.map((t): TaskSummary => {
    counts[t.status]++;
    const blockedBy = blockers.get(t.id);
    let note = "";
    if (t.status === "FAILED") note = reasons.get(t.id) ?? "";
    else if (blockedBy) note = `blocked by ${blockedBy.join(", ")}`;
    else if (waitingFor.has(t.id))
      note = `waits for ${describeWaitingFor(waitingFor.get(t.id) ?? { tags: [] })}`;
    else if (t.status === "PENDING" && t.notBefore !== undefined && t.lastFailure !== undefined)
      note = `retry not before ${clockTime(t.notBefore)} (after ${t.lastFailure.reason})`;
    const failed = t.status === "FAILED";
    return {
      id: t.id,
      status: t.status,
      priority: t.priority,
      attempts: t.attempts,
      maxAttempts: effectiveMaxAttempts(t.maxAttempts, plan.maxAttempts),
      verification: t.status === "DONE" ? t.verification : undefined,
      blocks: failed
        ? blocked
            .filter((b) => b.blockedBy.includes(t.id))
            .map((b) => b.taskId)
            .sort()
        : [],
      worktree: failed ? extras.keptPath?.(t.id) : undefined,
      costMicroUsd: t.spentMicroUsd,
      durationMs: durations.get(t.id) ?? 0,
      note,
      ...ranOn.get(t.id),
    };
  });
  const budgetExhausted = budgetStops(plan, tasks, events);
  return {
    planId: plan.id,
    integration: extras.integration,
    ok: tasks.every((t) => t.status === "DONE" || t.status === "SKIPPED"),
    tasks: rows,
    counts,
    spentMicroUsd: plan.spentMicroUsd,
    budgetMicroUsd: plan.budgetMicroUsd,
    budgetExhausted,
  };
}

/** Per task, from the plan's events: agent time, the last failure's note, the last attempt's agent and model. */
function readEvents(events: readonly EventRecord[]) {
  const durations = new Map<string, number>();
  const reasons = new Map<string, string>();
  const ranOn = new Map<string, { agent?: string; model?: string }>();
  for (const event of events) {
    const taskId = event.taskId;
    if (!taskId) continue;
    // A reset keeps both spend and time: the money and the minutes were spent either way.
    if (event.eventType !== EVENT_TYPES.complete && event.eventType !== EVENT_TYPES.fail) continue;
    // The worker's wall clock covers the whole attempt; the agent's own duration_ms leaves out start-up.
    const ms = Number(event.detail?.wall_ms ?? event.detail?.duration_ms ?? 0);
    durations.set(taskId, (durations.get(taskId) ?? 0) + (Number.isFinite(ms) ? ms : 0));
    const agent = agentOfEvent(event);
    if (agent !== undefined) ranOn.set(taskId, agent);
    if (event.eventType === EVENT_TYPES.fail) reasons.set(taskId, failureNote(event));
  }
  return { durations, reasons, ranOn };
}

/** The agent and model a COMPLETE or FAIL event's detail names, if it names an agent. */
function agentOfEvent(event: EventRecord): { agent: string; model?: string } | undefined {
  const { agent, model } = event.detail ?? {};
  if (typeof agent !== "string") return undefined;
  return { agent, ...(typeof model === "string" && model !== "" ? { model } : {}) };
}

/**
 * Whether the budget is what stops the plan: spend at or over it, or a ready task left that a claim
 * refuses because spend plus the attempt's reservation would pass the budget. R is worked out as the
 * store does (docs/claim.md): the plan's reserve, else the largest of the last 20 attempt costs.
 */
function budgetStops(
  plan: PlanRecord,
  tasks: readonly TaskRecord[],
  events: readonly EventRecord[],
): boolean {
  const budget = plan.budgetMicroUsd;
  if (budget === undefined) return false;
  if (plan.spentMicroUsd >= budget) return true;
  const done = new Set(tasks.filter((t) => t.status === "DONE").map((t) => t.id));
  const readyLeft = tasks.some((t) => t.status === "PENDING" && t.dependencies.every((d) => done.has(d)));
  if (!readyLeft) return false;
  const costs = events
    .filter((e) => e.eventType === EVENT_TYPES.complete || e.eventType === EVENT_TYPES.fail)
    .slice(-20)
    .map((e) => (typeof e.payload.cost_usd === "string" ? (parseUsd(e.payload.cost_usd) ?? 0) : 0))
    .filter((cost) => cost > 0);
  const reserve = plan.reserveMicroUsd ?? (costs.length > 0 ? Math.max(...costs) : undefined);
  if (reserve === undefined) return false;
  return plan.spentMicroUsd + (plan.reservedMicroUsd ?? 0) + reserve > budget;
}

/** A failed attempt in a few words: its reason and, when the agent said why, that too. */
function failureNote(event: EventRecord): string {
  const reason = String(event.payload.reason ?? "failed");
  const message = event.detail?.message;
  return typeof message === "string" && message !== "" ? `${reason}: ${message}` : reason;
}

/** The note a row shows: why a task failed, what blocks it, or that DONE rests on the agent's word. */
function tableNote(t: TaskSummary): string {
  if (t.verification === "unverified") return t.note === "" ? "unverified" : `unverified; ${t.note}`;
  return t.note;
}

function failedLines(summary: RunSummary): string {
  const failed = summary.tasks.filter((t) => t.status === "FAILED");
  if (failed.length === 0) return "";
  let text = "";
  for (const t of failed) {
    const blocks = t.blocks.length === 0 ? "" : `; keeps blocked: ${t.blocks.join(", ")}`;
    const kept = t.worktree === undefined ? "" : `; worktree kept at ${t.worktree}`;
    text += `${t.id} FAILED after ${t.attempts} of ${t.maxAttempts} attempt(s)${blocks}${kept}\n`;
  }
  return `${text}failed tasks stay FAILED; to run them again: whilly plan reset '${summary.planId}' --failed --yes, then whilly run again.\n`;
}

function integrationLine(integration: Integration | undefined): string {
  if (integration === undefined) return "";
  return workLine(integration) + userTreeLine(integration.userTreeChanged ?? []);
}

function workLine(integration: Integration): string {
  if (integration.fastForwarded)
    return `your branch now holds the work of ${integration.branch} (fast-forwarded)\n`;
  if (integration.command === undefined) return "";
  const why = integration.why === undefined ? "" : ` (${integration.why})`;
  return `the work is on branch ${integration.branch}${why}; take it with: ${integration.command}\n`;
}

/** The most changed paths of the user's tree the warning names; JSON carries them all. */
const NAMED_CHANGED_PATHS = 10;

function userTreeLine(paths: readonly string[]): string {
  if (paths.length === 0) return "";
  const named = paths.slice(0, NAMED_CHANGED_PATHS).join(", ");
  const more = paths.length > NAMED_CHANGED_PATHS ? ` and ${paths.length - NAMED_CHANGED_PATHS} more` : "";
  return `warning: ${paths.length} path(s) of your own working tree changed during the run, outside the task worktrees (an agent or a check may have written there): ${named}${more}; look at git status before you commit\n`;
}

/** The longest note the table shows; JSON carries it whole. */
const TABLE_NOTE_CHARS = 160;

function shortNote(note: string): string {
  return note.length <= TABLE_NOTE_CHARS ? note : `${note.slice(0, TABLE_NOTE_CHARS - 1)}…`;
}

/** The summary as a table plus a totals line, for stdout. */
export function renderSummary(summary: RunSummary, io: Io): string {
  const paint = painter(io.out, io.env);
  const rows = summary.tasks.map((t) => [
    t.id,
    paint(STATUS_STYLE[t.status], t.status),
    `${t.attempts}/${t.maxAttempts}`,
    displayUsd(t.costMicroUsd),
    t.durationMs > 0 ? displayDuration(t.durationMs) : "-",
    shortNote(tableNote(t)),
  ]);
  // The agent column shows once some task ran on another agent than Claude Code, the default.
  const withAgents = summary.tasks.some((t) => t.agent !== undefined && t.agent !== "claude");
  const table = withAgents
    ? renderTable(
        ["TASK", "STATUS", "ATTEMPTS", "COST", "TIME", "AGENT", "NOTE"],
        rows.map((row, i) => [...row.slice(0, 5), agentCell(summary.tasks[i]), ...row.slice(5)]),
      )
    : renderTable(["TASK", "STATUS", "ATTEMPTS", "COST", "TIME", "NOTE"], rows);
  const counts = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status}=${n}`)
    .join(" · ");
  const totalMs = summary.tasks.reduce((sum, t) => sum + t.durationMs, 0);
  const budget =
    summary.budgetMicroUsd === undefined ? "" : ` of ${displayUsd(summary.budgetMicroUsd)} budget`;
  let text = `${table}\nplan '${summary.planId}': ${counts} · spent ${displayUsd(summary.spentMicroUsd)}${budget} · agent time ${displayDuration(totalMs)}\n`;
  if (summary.budgetExhausted)
    text +=
      `budget exhausted: ${displayUsd(Math.max((summary.budgetMicroUsd ?? 0) - summary.spentMicroUsd, 0))} is left, ` +
      "less than the next claim reserves (the plan's reserve_usd, else its largest recent attempt cost: docs/claim.md); " +
      `raise the budget or set a smaller reserve: whilly plan budget '${summary.planId}' <USD|none> [--reserve USD]\n`;
  text += failedLines(summary);
  text += integrationLine(summary.integration);
  return text;
}

/** `codex gpt-5-codex`: a task's agent and model, `-` before an attempt finished. */
function agentCell(task: TaskSummary | undefined): string {
  if (task?.agent === undefined) return "-";
  return task.model === undefined ? task.agent : `${task.agent} ${task.model}`;
}

/** The summary as JSON (`whilly run --json`). Money as exact decimal strings in USD. */
export function summaryJson(summary: RunSummary) {
  return {
    plan_id: summary.planId,
    ok: summary.ok,
    counts: summary.counts,
    spent_usd: formatUsd(summary.spentMicroUsd),
    budget_usd: summary.budgetMicroUsd === undefined ? null : formatUsd(summary.budgetMicroUsd),
    budget_exhausted: summary.budgetExhausted,
    integration:
      summary.integration === undefined
        ? null
        : {
            branch: summary.integration.branch,
            fast_forwarded: summary.integration.fastForwarded,
            command: summary.integration.command ?? null,
            why: summary.integration.why ?? null,
            user_tree_changed: summary.integration.userTreeChanged ?? [],
          },
    tasks: summary.tasks.map((t) => ({
      id: t.id,
      status: t.status,
      priority: t.priority,
      attempts: t.attempts,
      max_attempts: t.maxAttempts,
      verification: t.verification ?? null,
      blocks: t.blocks,
      worktree: t.worktree ?? null,
      cost_usd: formatUsd(t.costMicroUsd),
      duration_ms: t.durationMs,
      agent: t.agent ?? null,
      model: t.model ?? null,
      note: t.note,
    })),
  };
}
