import type { JsonObject, PlanPayload, TaskPayload } from "@whilly/core";

/**
 * The end of one agent run on a task, as the worker reports it.
 * `detail` holds the audit summary (`reason`, `cost_usd`, `num_turns`, `duration_ms`, `session_id`,
 * `output_tail` ≤ 4 KiB); the loop adds `attempt`.
 */
export type AgentAttempt = {
  readonly ok: boolean;
  /** Why the attempt failed, e.g. `timeout`, `no_marker`; `undefined` on success. */
  readonly reason: string | undefined;
  /** Spend of this attempt in micro-USD; failed attempts count too. */
  readonly costMicroUsd: number;
  /** True when the run was stopped by the worker's own shutdown, not by the agent. */
  readonly aborted: boolean;
  readonly detail: JsonObject;
  /**
   * Set when the agent cannot run on this machine at all (not logged in, not installed): the loop hands
   * the task back with `agent_unavailable`, refunding the attempt, and stops with `AgentUnavailable`.
   */
  readonly unavailable?: { readonly message: string; readonly hint: string } | undefined;
};

/** Runs the agent once on `task`; must not throw for agent failures (they are attempts that failed). */
export type RunAttempt = (input: {
  task: TaskPayload;
  plan: PlanPayload | null;
  signal: AbortSignal;
}) => Promise<AgentAttempt>;

/** What a worker loop reports as it goes, for progress output and logs. */
export type ProgressEvent =
  | { readonly kind: "claimed"; readonly task: TaskPayload }
  | { readonly kind: "started"; readonly task: TaskPayload }
  /** The agent is still working on `task`, `elapsedMs` (ms) after it started; every progress interval. */
  | { readonly kind: "running"; readonly task: TaskPayload; readonly elapsedMs: number }
  | {
      readonly kind: "finished";
      readonly task: TaskPayload;
      readonly attempt: AgentAttempt;
      readonly elapsedMs: number;
    }
  | { readonly kind: "released"; readonly task: TaskPayload; readonly reason: string }
  /**
   * The lease on `task` was lost (409): before the agent started (`beforeStart`, nothing ran), or with
   * its result, which is dropped.
   */
  | {
      readonly kind: "lost";
      readonly task: TaskPayload;
      readonly error: Error;
      readonly beforeStart: boolean;
    }
  /**
   * Handing `task` back on a stop (with its result, when the agent had finished) was refused or
   * unanswered. The lease was not lost: it runs out and the task is run again.
   */
  | { readonly kind: "release_failed"; readonly task: TaskPayload; readonly error: Error }
  | { readonly kind: "retrying"; readonly what: string; readonly delayMs: number; readonly error: Error }
  | { readonly kind: "heartbeat_failed"; readonly error: Error };

/** Counters a worker loop returns when it stops. */
export type WorkerStats = {
  claimed: number;
  completed: number;
  failed: number;
  released: number;
  /** Results the control plane refused with 409 (the lease was lost meanwhile). */
  lost: number;
  idlePolls: number;
};
