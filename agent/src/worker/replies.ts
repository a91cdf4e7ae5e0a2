/** How the worker loop reads the control plane's replies and what it reports of an attempt. */
import { randomUUID } from "node:crypto";
import {
  type AttemptProgress,
  Forbidden,
  formatUsd,
  NotOwner,
  TaskNotFound,
  type TaskPayload,
  type TaskStatus,
  Unauthorized,
  VersionConflict,
} from "@whilly/core";
import type { AttemptReport, ReleaseSpend } from "../client/task-client.js";
import type { AgentAttempt, WorkerStats } from "./types.js";

/**
 * Where a reported attempt left its task; `answered` when the control plane took this report itself
 * (not a 409 that only looks like an earlier try of it having landed).
 */
export type Landed = { status: TaskStatus | undefined; notBefore: Date | undefined; answered?: boolean };

/** A payload's ISO time as a date; undefined when absent or unreadable. */
export function dateOf(iso: string | null | undefined): Date | undefined {
  if (iso === null || iso === undefined) return undefined;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** What a shutdown release carries of an interrupted attempt's cost; none when it cost nothing known. */
export function spendOf(attempt: AgentAttempt): ReleaseSpend | undefined {
  if (!(attempt.costMicroUsd > 0)) return undefined;
  return { costUsd: formatUsd(attempt.costMicroUsd), idempotencyKey: randomUUID() };
}

/** What a complete or fail carries of an attempt. */
export function reportOf(task: TaskPayload, attempt: AgentAttempt, wallMs: number): AttemptReport {
  return {
    costUsd: formatUsd(attempt.costMicroUsd),
    detail: { attempt: task.attempts, ...attempt.detail, wall_ms: wallMs },
    // One key for every retry of this report: the control plane counts the cost once (docs/protocol.md).
    idempotencyKey: randomUUID(),
    verification: attempt.ok ? attempt.verification : undefined,
    failure: attempt.ok ? undefined : attempt.failure,
    work: attempt.ok ? attempt.work : undefined,
  };
}

/**
 * True for a 409 showing that the transition this worker asked for already happened: the task is in
 * `status` at exactly the next version. From a claim held at version v, only the claiming worker's own
 * start, complete or fail can put the task in `IN_PROGRESS`, `DONE` or `FAILED` at v+1 (every fenced
 * transition checks the owner; the sweep and reset move it to `PENDING`, skip to `SKIPPED`). So this is
 * a retry of a call that succeeded but whose reply was lost, e.g. to a control-plane restart.
 */
export function alreadyMoved(error: unknown, task: TaskPayload, status: TaskStatus): boolean {
  return (
    error instanceof VersionConflict &&
    error.actualVersion === task.version + 1 &&
    error.actualStatus === status
  );
}

/**
 * {@link alreadyMoved} for a fail: to `FAILED`, or back to `PENDING` when attempts were left (a retry).
 * A sweep that returned the task at v+1 meanwhile looks the same; either way the task runs again.
 */
export function failedAlready(error: unknown, task: TaskPayload): boolean {
  return alreadyMoved(error, task, "FAILED") || alreadyMoved(error, task, "PENDING");
}

/** A 409, or a 404 for a task that is gone (its plan was deleted): either way the lease is no more. */
export function isLeaseLost(error: unknown): error is Error {
  return error instanceof VersionConflict || error instanceof NotOwner || error instanceof TaskNotFound;
}

export function isRefusal(error: unknown): error is Error {
  return error instanceof Unauthorized || error instanceof Forbidden;
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Attempts whose result the control plane took: done, failed, or failed with a retry queued. */
export function reported(stats: WorkerStats): number {
  return stats.completed + stats.failed + stats.retried;
}

export function definedOnly(progress: AttemptProgress): AttemptProgress {
  return Object.fromEntries(Object.entries(progress).filter(([, value]) => value !== undefined));
}

export function withAttempt(attempt: AgentAttempt, number: number): AgentAttempt {
  return { ...attempt, detail: { attempt: number, ...attempt.detail } };
}
