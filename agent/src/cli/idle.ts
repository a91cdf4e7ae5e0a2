import { TASK_STATUSES, type TaskStatus } from "@whilly/core";
import type { StatusCounts } from "../client/plan-check.js";
import type { WorkerIo } from "./io.js";

/** Statuses a task can still leave without a reset: pending, or held by some worker. */
const OPEN: readonly TaskStatus[] = ["PENDING", "CLAIMED", "IN_PROGRESS"];

/** Options of {@link idleWatch}. Durations are ms. */
export type IdleWatchOptions = {
  planId: string;
  /** `--once` or `--max-iterations`: the worker is meant to end, so a plan with nothing open ends it. */
  bounded: boolean;
  /** How long the worker waits between two "waiting" lines (ms). */
  intervalMs: number;
  /** The plan's task counts now; `undefined` when the control plane cannot say. Must not throw. */
  readCounts: () => Promise<StatusCounts | undefined>;
  io: Pick<WorkerIo, "err">;
  now?: () => number;
};

/**
 * What the worker says and decides while no task of its plan is ready. Every `intervalMs` of waiting it
 * logs a `waiting for a ready task` line with the plan's open tasks, so a quiet worker shows it is
 * alive and why it is idle. A bounded worker (`--once`, `--max-iterations`) stops once the plan has no
 * open task: every task is DONE, FAILED or SKIPPED, so no claim can succeed until someone imports tasks
 * or resets failed ones, and a run meant to end should not wait for that. An unbounded worker serves
 * the plan for as long as it runs, so it keeps waiting and says the plan has no open task.
 */
export function idleWatch(options: IdleWatchOptions) {
  const now = options.now ?? Date.now;
  let idleSince: number | undefined;
  let lastLineAt = 0;

  /** True when `counts` say that nothing is open; false when something is or the counts are unknown. */
  const finished = (counts: StatusCounts | undefined) =>
    counts !== undefined && OPEN.every((status) => (counts[status] ?? 0) === 0);

  /**
   * Says so and returns true when a bounded worker should stop because nothing is open.
   * For the plan check at start, before any claim.
   */
  const nothingToDo = (counts: StatusCounts | undefined): boolean => {
    if (!options.bounded || !finished(counts)) return false;
    options.io.err.write(
      `whilly-worker: plan '${options.planId}' has no open task (${listCounts(counts, TASK_STATUSES)}); nothing to wait for, stopping\n`,
    );
    return true;
  };

  return {
    nothingToDo,
    /** A task was claimed: the next wait starts afresh. */
    onClaimed(): void {
      idleSince = undefined;
    },
    /**
     * After a claim found nothing ready.
     * @returns false when the worker should stop (a bounded worker on a plan with nothing open).
     */
    async onIdlePoll(): Promise<boolean> {
      const at = now();
      if (idleSince === undefined) {
        idleSince = at;
        lastLineAt = at;
      }
      const lineDue = at - lastLineAt >= options.intervalMs;
      // A bounded worker asks on every idle poll (at most one a second), so it ends soon after the
      // last open task does; an unbounded one asks only when it has a line to print.
      if (!options.bounded && !lineDue) return true;
      const counts = await options.readCounts();
      if (nothingToDo(counts)) return false;
      if (lineDue) {
        lastLineAt = at;
        const waited = Math.round((at - idleSince) / 1000);
        options.io.err.write(
          `whilly-worker: waiting for a ready task in plan '${options.planId}'${describeOpen(counts)} for ${waited} s\n`,
        );
      }
      return true;
    },
  };

  function describeOpen(counts: StatusCounts | undefined): string {
    if (counts === undefined) return "";
    if (finished(counts)) return ` (no open task: ${listCounts(counts, TASK_STATUSES)})`;
    return ` (open: ${listCounts(counts, OPEN)})`;
  }
}

/** `DONE=1 FAILED=2`: the given statuses with a count above zero, in status order. */
function listCounts(counts: StatusCounts | undefined, statuses: readonly TaskStatus[]): string {
  const listed = statuses
    .filter((status) => (counts?.[status] ?? 0) > 0)
    .map((status) => `${status}=${counts?.[status]}`)
    .join(" ");
  return listed === "" ? "no tasks" : listed;
}
