import { sleep } from "@whilly/agent";
import {
  describeWaitingFor,
  type TaskRecord,
  type TaskStore,
  type WaitingTask,
  type WorkerCapabilities,
} from "@whilly/core";
import type { Io } from "../io.js";
import { clockTime } from "./progress.js";

/** What an idle claim slot of `whilly run` found left to wait for. */
export type IdleVerdict =
  /** Another slot or process still runs a task: its end may make more ready; a retry may be due sooner. */
  | { readonly kind: "running"; readonly nextRetry?: Date | undefined }
  /** Only retries wait: the earliest may be claimed at `until`. */
  | { readonly kind: "retry"; readonly until: Date; readonly taskIds: readonly string[] }
  /** Nothing can become ready any more. */
  | { readonly kind: "done" };

/**
 * Why a slot that found nothing to claim should go on: tasks of the plan held by any other worker
 * (another slot of this run, or another process on a shared Postgres), else failed tasks waiting out
 * their retry backoff (`PENDING` with a not-before time still ahead, by this machine's clock).
 */
export function idleVerdict(tasks: readonly TaskRecord[], selfId: string, now: number): IdleVerdict {
  const running = tasks.some(
    (t) => (t.status === "CLAIMED" || t.status === "IN_PROGRESS") && t.claimedBy !== selfId,
  );
  const waiting = tasks.filter(
    (t) => t.status === "PENDING" && t.notBefore !== undefined && t.notBefore.getTime() > now,
  );
  const until =
    waiting.length === 0
      ? undefined
      : new Date(Math.min(...waiting.map((t) => t.notBefore?.getTime() ?? now)));
  if (running) return until === undefined ? { kind: "running" } : { kind: "running", nextRetry: until };
  if (until === undefined) return { kind: "done" };
  return { kind: "retry", until, taskIds: waiting.map((t) => t.id) };
}

/** Whether a `PENDING` task has every dependency `DONE`: claimable but for a pause. */
function hasReady(tasks: readonly TaskRecord[]): boolean {
  const done = new Set(tasks.filter((t) => t.status === "DONE").map((t) => t.id));
  return tasks.some((t) => t.status === "PENDING" && t.dependencies.every((d) => done.has(d)));
}

/** Options of {@link waitWhileIdle}. Durations are ms. */
export type IdleWaitOptions = {
  readonly store: TaskStore;
  readonly planId: string;
  readonly selfId: string;
  /** Poll period while another worker runs a task. */
  readonly pollMs: number;
  /** `--no-wait`: do not wait for retries; the caller exits `EXIT.waiting`. */
  readonly noWait: boolean;
  readonly signal: AbortSignal;
  /** Says once per retry time that the run waits for it. */
  readonly onRetryWait: (until: Date, taskIds: readonly string[]) => void;
  /** Called when `--no-wait` leaves retries waiting. */
  readonly onLeftWaiting: (until: Date, taskIds: readonly string[]) => void;
  /**
   * What this run can run: once nothing is left to wait for, the ready tasks it cannot run are named
   * through `onWaitingForCapability` (they wait for another worker), and the slot ends.
   */
  readonly capabilities?: WorkerCapabilities | undefined;
  readonly onWaitingForCapability?: ((waiting: readonly WaitingTask[]) => void) | undefined;
  /** True while a provider limit pauses this process's claims: a task handed back for it is still work. */
  readonly paused?: (() => boolean) | undefined;
  /**
   * Whether an operator paused every worker (`whilly worker pause`): ready tasks then wait for the
   * resume rather than the run ending with them undone.
   */
  readonly operatorPaused?: (() => Promise<boolean>) | undefined;
  /** Says that the run waits for `whilly worker resume`, or (`--no-wait`) that it does not. */
  readonly onOperatorPause?: ((waiting: boolean) => void) | undefined;
  readonly now?: (() => number) | undefined;
};

/**
 * The idle step of a local run's slot: waits while another worker runs a task (it may make more
 * ready) or until the next retry may be claimed, and says which. Ready tasks this run cannot run
 * (`options.capabilities`) are nothing to wait for: the slot ends and names them.
 * @returns true to claim again, false when the slot is done.
 */
export async function waitWhileIdle(options: IdleWaitOptions): Promise<boolean> {
  const now = options.now ?? Date.now;
  // The loop waits the pause out (or, under --no-wait, stops) before it claims again.
  if (options.paused?.() === true) return true;
  const tasks = await options.store.listTasks(options.planId);
  const verdict = idleVerdict(tasks, options.selfId, now());
  if (verdict.kind === "done" && hasReady(tasks) && (await options.operatorPaused?.()) === true) {
    options.onOperatorPause?.(!options.noWait);
    if (options.noWait) return false;
    await sleep(options.pollMs, options.signal);
    return !options.signal.aborted;
  }
  if (verdict.kind === "done") {
    if (options.capabilities !== undefined) {
      const waiting = await options.store.listWaiting(options.planId, {
        capabilities: [options.capabilities],
      });
      if (waiting.length > 0) options.onWaitingForCapability?.(waiting);
    }
    return false;
  }
  if (verdict.kind === "running") {
    const retryIn = verdict.nextRetry === undefined ? options.pollMs : verdict.nextRetry.getTime() - now();
    await sleep(Math.max(Math.min(options.pollMs, retryIn), 50), options.signal);
    return !options.signal.aborted;
  }
  if (options.noWait) {
    options.onLeftWaiting(verdict.until, verdict.taskIds);
    return false;
  }
  options.onRetryWait(verdict.until, verdict.taskIds);
  // The store's clock decides; a claim a little early finds nothing and waits again, briefly.
  await sleep(Math.max(verdict.until.getTime() - now(), 50), options.signal);
  return !options.signal.aborted;
}

/**
 * Says once per pause that the run waits for `whilly worker resume` (or, under `--no-wait`, that it
 * stops); a resume and a later pause say it again.
 */
export function operatorPausePrinter(io: Pick<Io, "err">) {
  let said = false;
  return {
    paused(waiting: boolean) {
      if (said) return;
      said = true;
      io.err.write(
        waiting
          ? "whilly run: workers are paused (whilly worker pause): ready tasks wait until `whilly worker resume`\n"
          : "whilly run: workers are paused (whilly worker pause); not waiting (--no-wait): run again after `whilly worker resume`\n",
      );
    },
    claimed() {
      said = false;
    },
  };
}

/** Says, once per retry time, that the run waits for a failed task's retry; and remembers `--no-wait`. */
export function retryWaitPrinter(io: Pick<Io, "err">) {
  const said = new Set<number>();
  let left = false;
  return {
    waiting(until: Date, taskIds: readonly string[]) {
      if (said.has(until.getTime())) return;
      said.add(until.getTime());
      io.err.write(
        `whilly run: waiting for the retry of ${taskIds.join(", ")} at ${clockTime(until)} (WHILLY_RETRY_BACKOFF)\n`,
      );
    },
    leftWaiting(until: Date, taskIds: readonly string[]) {
      if (left) return;
      left = true;
      io.err.write(
        `whilly run: ${taskIds.join(", ")} wait(s) for a retry at ${clockTime(until)}; not waiting (--no-wait): run again after it\n`,
      );
    },
    leftAny: () => left,
  };
}

/**
 * Says, once per task, that a ready task waits for a worker this run is not: one with the agent or
 * tags it lacks (docs/agents.md#routing).
 */
export function capabilityWaitPrinter(io: Pick<Io, "err">) {
  const said = new Set<string>();
  return (waiting: readonly WaitingTask[]) => {
    for (const { taskId, waitingFor } of waiting) {
      if (said.has(taskId)) continue;
      said.add(taskId);
      io.err.write(
        `whilly run: ${taskId} waits for ${describeWaitingFor(waitingFor)}, which this run is not; run it on such a worker (whilly-worker) or change its agent or required_tags\n`,
      );
    }
  };
}
