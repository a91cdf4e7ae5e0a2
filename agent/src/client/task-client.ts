import {
  type ClaimResponse,
  claimResponseSchema,
  type ErrorEnvelope,
  errorEnvelopeSchema,
  Forbidden,
  type HeartbeatResponse,
  heartbeatResponseSchema,
  InvalidInput,
  type JsonObject,
  NotOwner,
  TaskNotFound,
  type TaskPayload,
  TransportError,
  taskResponseSchema,
  Unauthorized,
  VersionConflict,
  type WhillyError,
} from "@whilly/core";
import { describeFetchError, safeJson } from "./reply.js";

/**
 * A fetch-shaped transport: undici's `fetch` for a remote control plane, or `app.request` for the
 * in-process one in local mode.
 */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** The fields of a request body the error mapping reads. */
type FencedBody = { worker_id?: string; version?: number; [key: string]: unknown };

/** A response validator (a zod schema from core's protocol module). */
type Parser<T> = { safeParse(value: unknown): { success: boolean; data?: T } };

/** What the worker reports when an attempt ends. `costUsd` is a decimal string (exact). */
export type AttemptReport = {
  costUsd: string;
  detail: JsonObject;
  /** Names the attempt, so the control plane counts its cost once however often it is reported. */
  idempotencyKey?: string | undefined;
};

/**
 * A protocol v1 client for one worker identity.
 * Every method throws a {@link WhillyError}: `VersionConflict`/`NotOwner` on 409, `Unauthorized` on 401,
 * `Forbidden` on 403, `TaskNotFound` on 404, `InvalidInput` on 400/422, `TransportError` (retryable) on
 * network errors, 5xx and unparsable replies.
 */
export type TaskClient = {
  /**
   * Long-polls for a ready task of the plan, asking the control plane to start it in the same
   * transaction (`start: true`); a control plane that does not returns it `CLAIMED`, to be started.
   * @param options.signal abandons the wait (the request is aborted; a `TransportError` is thrown).
   * @returns the claimed task and its plan, or `undefined` when nothing became ready in time (204).
   */
  claim(planId: string, options?: { signal?: AbortSignal | undefined }): Promise<ClaimResponse | undefined>;
  start(task: TaskPayload): Promise<TaskPayload>;
  complete(task: TaskPayload, report: AttemptReport): Promise<TaskPayload>;
  fail(task: TaskPayload, reason: string, report: AttemptReport): Promise<TaskPayload>;
  release(task: TaskPayload, reason: string): Promise<TaskPayload>;
  /** Renews the leases of `running` (every lease the worker holds when omitted). */
  heartbeat(running?: readonly TaskPayload[]): Promise<HeartbeatResponse>;
};

/**
 * Builds a {@link TaskClient}.
 * @param options.baseUrl the control plane's URL, e.g. `http://127.0.0.1:8000` (`http://whilly.local` in-process).
 * @param options.token sent as `Authorization: Bearer <token>` when given.
 */
export function createTaskClient(options: {
  baseUrl: string;
  fetch: Fetch;
  workerId: string;
  token?: string | undefined;
}): TaskClient {
  const { workerId } = options;
  const base = options.baseUrl.replace(/\/+$/, "");

  async function post<T>(
    path: string,
    body: FencedBody,
    schema: Parser<T>,
    signal?: AbortSignal,
  ): Promise<T | undefined> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let response: Response;
    try {
      response = await options.fetch(`${base}${path}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    } catch (cause) {
      throw new TransportError(
        `cannot reach the control plane at ${base}: ${describeFetchError(cause)}`,
        undefined,
        {
          cause,
        },
      );
    }
    if (response.status === 204) return undefined;
    const text = await response.text();
    if (!response.ok) throw errorFromResponse(response.status, text, body);
    const parsed = schema.safeParse(safeJson(text));
    if (!parsed.success || parsed.data === undefined) {
      throw new TransportError(`unexpected reply from ${path}: ${text.slice(0, 200)}`, response.status);
    }
    return parsed.data;
  }

  const fence = (task: TaskPayload) => ({
    worker_id: workerId,
    plan_id: task.plan_id,
    version: task.version,
  });
  const taskPath = (task: TaskPayload, verb: string) => `/tasks/${encodeURIComponent(task.id)}/${verb}`;
  const required = <T>(value: T | undefined, path: string): T => {
    if (value === undefined) throw new TransportError(`empty reply from ${path}`, 204);
    return value;
  };

  return {
    claim: (planId, claimOptions) =>
      post(
        "/tasks/claim",
        { worker_id: workerId, plan_id: planId, start: true },
        claimResponseSchema,
        claimOptions?.signal,
      ),
    async start(task) {
      const reply = await post(taskPath(task, "start"), fence(task), taskResponseSchema);
      return required(reply, "start").task;
    },
    async complete(task, report) {
      const body = { ...fence(task), cost_usd: report.costUsd, detail: report.detail, ...keyOf(report) };
      return required(await post(taskPath(task, "complete"), body, taskResponseSchema), "complete").task;
    },
    async fail(task, reason, report) {
      const body = {
        ...fence(task),
        reason,
        cost_usd: report.costUsd,
        detail: report.detail,
        ...keyOf(report),
      };
      return required(await post(taskPath(task, "fail"), body, taskResponseSchema), "fail").task;
    },
    async release(task, reason) {
      const body = { ...fence(task), reason };
      return required(await post(taskPath(task, "release"), body, taskResponseSchema), "release").task;
    },
    async heartbeat(running) {
      const path = `/workers/${encodeURIComponent(workerId)}/heartbeat`;
      const tasks = running?.map((t) => ({ plan_id: t.plan_id, task_id: t.id }));
      const body = tasks === undefined ? { worker_id: workerId } : { worker_id: workerId, tasks };
      return required(await post(path, body, heartbeatResponseSchema), "heartbeat");
    },
  };
}

function errorFromResponse(status: number, text: string, request: FencedBody): WhillyError {
  const envelope = errorEnvelopeSchema.safeParse(safeJson(text));
  if (status === 409 && envelope.success) return conflictFrom(envelope.data, request);
  const detail = envelope.success ? envelope.data.detail : text.slice(0, 300) || `HTTP ${status}`;
  const taskId = envelope.success ? envelope.data.task_id : null;
  if (status === 401) return new Unauthorized(detail);
  if (status === 403) return new Forbidden(detail);
  if (status === 404 && taskId !== null) return new TaskNotFound(taskId);
  if (status === 400 || status === 422) return new InvalidInput("body", detail);
  return new TransportError(`control plane answered ${status}: ${detail}`, status, {
    retryable: status >= 500,
  });
}

function conflictFrom(e: ErrorEnvelope, request: FencedBody): WhillyError {
  const taskId = e.task_id ?? "";
  if (e.error_code === "not_owner" && e.actual_version != null && e.actual_status != null) {
    return new NotOwner(taskId, request.worker_id ?? "", undefined, e.actual_version, e.actual_status);
  }
  const expected = e.expected_version ?? request.version ?? 0;
  return new VersionConflict(taskId, expected, e.actual_version ?? undefined, e.actual_status ?? undefined);
}

/** The body field carrying the report's idempotency key, when it has one. */
function keyOf(report: AttemptReport): { idempotency_key?: string } {
  return report.idempotencyKey === undefined ? {} : { idempotency_key: report.idempotencyKey };
}
