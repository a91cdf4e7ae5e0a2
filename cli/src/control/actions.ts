import {
  ConfigurationError,
  PlanNotFound,
  TaskNotFound,
  type TaskStatus,
  TransportError,
  VersionConflict,
} from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../connect-timeout.js";

/** Operator actions on a control plane or a local store. Each is written as an audit event. */
export interface ControlActions {
  /** FAILED -> PENDING (a retry), event RESET. Throws the project's error (409-like) when the task is not FAILED, not found when missing. */
  resetTask(planId: string, taskId: string): Promise<void>;
  /** CLAIMED/IN_PROGRESS -> PENDING, event RELEASE with reason `admin_release`; the worker that held it loses its lease (its late complete gets 409). */
  releaseTask(planId: string, taskId: string): Promise<void>;
  /** Every worker (including ones that register later) finishes its current task and claims nothing until resumed. */
  pauseWorkers(): Promise<void>;
  resumeWorkers(): Promise<void>;
}

/**
 * {@link ControlActions} on a store this process opened (the embedded one or Postgres): each action is
 * one store transaction that writes its audit event. Workers of a control plane on the same database
 * see a pause at their next claim, and a resume wakes their parked claims (the store's ready signal).
 * @throws {VersionConflict} (`actualStatus` set) for a task in a status the action may not leave;
 *   {@link TaskNotFound} for a missing task.
 */
export function storeControlActions(
  store: Pick<Store, "resetTask" | "releaseTask" | "pauseWorkers" | "resumeWorkers">,
): ControlActions {
  return {
    async resetTask(planId, taskId) {
      await store.resetTask(planId, taskId);
    },
    async releaseTask(planId, taskId) {
      await store.releaseTask(planId, taskId);
    },
    async pauseWorkers() {
      await store.pauseWorkers();
    },
    async resumeWorkers() {
      await store.resumeWorkers();
    },
  };
}

/** Options of {@link remoteControlActions}. */
export type RemoteControlOptions = {
  /** The control plane's base URL (`--connect`). */
  readonly url: string;
  /** The control plane's `WHILLY_ADMIN_TOKEN`: the actions write, so no read-only token will do. */
  readonly token: string;
  /** How long one request may take (ms); see `connectTimeoutMs`. Default 30 s. */
  readonly timeoutMs?: number | undefined;
};

/**
 * {@link ControlActions} over HTTP: `POST /api/v1/plans/{plan}/tasks/{task}/reset` and `/release`,
 * `POST /api/v1/workers/pause` and `/resume`, with the admin token (docs/protocol.md#operator-actions).
 * @throws {VersionConflict} on 409 (the task's `actualStatus` as the server said);
 *   {@link TaskNotFound} / {@link PlanNotFound} on 404; {@link ConfigurationError} when the server
 *   cannot be reached or refuses the token (401, 403); {@link TransportError} for another error status.
 */
export function remoteControlActions(opts: RemoteControlOptions): ControlActions {
  const base = opts.url.replace(/\/+$/, "");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const task = (planId: string, taskId: string, verb: string) =>
    `${base}/api/v1/plans/${encodeURIComponent(planId)}/tasks/${encodeURIComponent(taskId)}/${verb}`;
  const post = (url: string, ids?: { planId: string; taskId: string }) =>
    postAction(url, opts.token, timeoutMs, ids);
  return {
    resetTask: (planId, taskId) => post(task(planId, taskId, "reset"), { planId, taskId }),
    releaseTask: (planId, taskId) => post(task(planId, taskId, "release"), { planId, taskId }),
    pauseWorkers: () => post(`${base}/api/v1/workers/pause`),
    resumeWorkers: () => post(`${base}/api/v1/workers/resume`),
  };
}

type Envelope = {
  error_code?: string;
  detail?: string;
  actual_version?: number | null;
  actual_status?: TaskStatus | null;
};

/** One action's POST; maps the protocol v1 error envelope to the project's errors (see above). */
async function postAction(
  url: string,
  token: string,
  timeoutMs: number,
  ids: { planId: string; taskId: string } | undefined,
): Promise<void> {
  const origin = new URL(url).origin;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { accept: "application/json", authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    throw new ConfigurationError(`the control plane at ${origin} cannot be reached (${reason(cause)})`, {
      hint: "check --connect URL and that whilly server runs there; WHILLY_CONNECT_TIMEOUT gives it longer",
      cause,
    });
  }
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const text = await response.text();
  const envelope = safeJson(text);
  if (ids && response.status === 404 && envelope?.error_code === "plan_not_found") {
    throw new PlanNotFound(ids.planId);
  }
  if (ids && response.status === 404 && envelope?.error_code === "task_not_found") {
    throw new TaskNotFound(ids.taskId, ids.planId);
  }
  if (ids && response.status === 409 && envelope?.actual_status) {
    const version = envelope.actual_version ?? 0;
    throw new VersionConflict(ids.taskId, version, version, envelope.actual_status, ids.planId);
  }
  const what = `POST ${new URL(url).pathname} at ${origin} answered ${response.status}${envelope?.error_code ? ` ${envelope.error_code}` : ""}: ${envelope?.detail ?? text.slice(0, 300)}`;
  if (response.status === 401 || response.status === 403) {
    throw new ConfigurationError(what, {
      hint: "set WHILLY_ADMIN_TOKEN to the control plane's admin token (a read-only token cannot act)",
    });
  }
  throw new TransportError(what, response.status, {
    retryable: response.status >= 500,
    hint: "fix what the server says, then run again",
  });
}

function safeJson(text: string): Envelope | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

function reason(cause: unknown): string {
  const error = cause as { name?: string; message?: string; cause?: { code?: string } };
  if (error?.name === "AbortError" || error?.name === "TimeoutError") return "no answer in time";
  return error?.cause?.code ?? error?.message ?? String(cause);
}
