import type {
  AttemptFailure,
  AttemptProgress,
  DependencyWork,
  JsonObject,
  PlanPayload,
  TaskPayload,
  TaskWork,
  Verification,
} from "@whilly/core";

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
  /**
   * Set when the provider refused with a usage or rate limit after the CLI's own retries: the loop hands
   * the task back with `rate_limited` (the attempt is refunded) and stops claiming until `until`, or for
   * a capped backoff when the provider named no reset time.
   */
  readonly limited?: { readonly message: string; readonly until: Date | undefined } | undefined;
  /**
   * Set when git on this machine could not get the dependencies' work or deliver the task's (a remote
   * down, a branch gone): the loop hands the task back with `workspace_unavailable` (the attempt is
   * refunded) and claims nothing for the pause gate's capped backoff.
   */
  readonly fault?: { readonly message: string; readonly hint: string } | undefined;
  /**
   * Set when the control plane said, before the task's work was published (pushed or merged), that this
   * worker no longer holds the task: nothing was published, and the loop drops the result as lost.
   */
  readonly leaseLost?: { readonly message: string } | undefined;
  /** On success in a worktree: the task's branch and its commit, sent with the completion. */
  readonly work?: TaskWork | undefined;
  /** On success: how the work was accepted (`passed`, or `unverified` without runnable checks). */
  readonly verification?: Verification | undefined;
  /** On failure: what the next attempt is told (the store adds `attempt` and `worker_id`). */
  readonly failure?: Omit<AttemptFailure, "attempt" | "worker_id"> | undefined;
  /** The agent's session id, when it reported one. */
  readonly sessionId?: string | undefined;
};

/** Runs one attempt on `task`; must not throw for agent failures (they are attempts that failed). */
export type RunAttempt = (input: {
  task: TaskPayload;
  plan: PlanPayload | null;
  signal: AbortSignal;
  /** The claim's dependency work, in the order of the task's dependencies; none from older servers. */
  dependencyWork?: readonly DependencyWork[] | undefined;
  /** Called as the attempt goes (agent turns, last tool, phase); the loop sends it with the heartbeat. */
  onActivity?: ((progress: AttemptProgress) => void) | undefined;
  /**
   * Asks the control plane whether this worker still holds the task, renewing its lease; false when it
   * answered no. The task's work is published (pushed, merged) only after true. Throws when it cannot ask.
   */
  holdsLease?: (() => Promise<boolean>) | undefined;
}) => Promise<AgentAttempt>;

/**
 * Runs the agent CLI once on `task` in `cwd` (a task's worktree, or the directory in place), without
 * whilly's checks: a {@link RunAttempt} wraps it with the workspace and verification. Must not throw for
 * agent failures.
 */
export type RunAgent = (input: {
  task: TaskPayload;
  plan: PlanPayload | null;
  cwd: string;
  signal: AbortSignal;
  /** Resume this session (`claude --resume`): set only when `cwd` is the worktree the session ran in. */
  resumeSessionId?: string | undefined;
  /** The previous attempt's failure, for the prompt; the claim's `previous_failure`. */
  previousFailure?: AttemptFailure | undefined;
  onActivity?: ((progress: AttemptProgress) => void) | undefined;
}) => Promise<AgentAttempt>;

/** What a worker loop reports as it goes, for progress output and logs. */
export type ProgressEvent =
  | { readonly kind: "claimed"; readonly task: TaskPayload }
  | { readonly kind: "started"; readonly task: TaskPayload }
  /** The agent is still working on `task`, `elapsedMs` (ms) after it started; every progress interval. */
  | { readonly kind: "running"; readonly task: TaskPayload; readonly elapsedMs: number }
  /** The attempt on `task` moved on: `progress` is what it did last, merged over what came before. */
  | { readonly kind: "activity"; readonly task: TaskPayload; readonly progress: AttemptProgress }
  /**
   * The provider refused `task`'s attempt with a usage or rate limit: the task was handed back
   * (`rate_limited`, attempt refunded) and no slot of this process claims before `until`.
   */
  | {
      readonly kind: "paused";
      readonly task: TaskPayload;
      readonly until: Date;
      readonly message: string;
      /** Set when only this agent was paused (other agents are still claimed for). */
      readonly agent?: string | undefined;
    }
  /**
   * git on this machine failed `task`'s attempt (see {@link AgentAttempt.fault}): the task was handed
   * back (`workspace_unavailable`, attempt refunded) and no slot of this process claims before `until`.
   */
  | {
      readonly kind: "faulted";
      readonly task: TaskPayload;
      readonly until: Date;
      readonly message: string;
      readonly hint: string;
    }
  | {
      readonly kind: "finished";
      readonly task: TaskPayload;
      readonly attempt: AgentAttempt;
      readonly elapsedMs: number;
      /** A failed attempt with attempts left: the task went back to `PENDING` for a retry. */
      readonly retry?: boolean | undefined;
      /** With `retry`: when the retry may be claimed (the task's `not_before`); unknown when undefined. */
      readonly notBefore?: Date | undefined;
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
  /**
   * The failure analysis after `task`'s `FAIL` ended (docs/triz.md#on-a-failed-task): `outcome` is the
   * event reported (`triz.contradiction`, `triz.error`), `none` (no contradiction), or `unreported`
   * when the report could not be sent (`error`).
   */
  | {
      readonly kind: "triz";
      readonly task: TaskPayload;
      readonly outcome: string;
      readonly detail?: JsonObject | undefined;
      readonly error?: Error | undefined;
    }
  | { readonly kind: "retrying"; readonly what: string; readonly delayMs: number; readonly error: Error }
  | { readonly kind: "heartbeat_failed"; readonly error: Error };

/** Counters a worker loop returns when it stops. */
export type WorkerStats = {
  claimed: number;
  completed: number;
  /** Tasks that failed their last attempt. */
  failed: number;
  /** Failed attempts the control plane queued a retry for. */
  retried: number;
  released: number;
  /** Attempts handed back on a provider limit (`rate_limited`); counted in `released` too. */
  limited: number;
  /** Results the control plane refused with 409 (the lease was lost meanwhile). */
  lost: number;
  idlePolls: number;
};

/** The agent and model a failed attempt ran with (its audit detail's `agent`, `model`), when known. */
export type FailedWith = { readonly agent?: string | undefined; readonly model?: string | undefined };

/**
 * Work the worker loop starts in the background after a task's `FAIL` was reported: it never delays
 * the next claim, and the loop waits for it (bounded) before it returns.
 */
export type AfterFail = {
  /** Starts the work for `task`, whose attempt (run `ran`) just failed; returns at once. */
  start(task: TaskPayload, ran?: FailedWith): void;
  /** Waits for the work in flight, at most its bound, ends what is left and waits for that; never rejects. */
  drain(): Promise<void>;
};
