import {
  type ErrorEnvelope,
  errorSummary,
  Forbidden,
  InvalidInput,
  NotOwner,
  PlanConflict,
  PlanInvalid,
  PlanNotFound,
  TaskNotFound,
  Unauthorized,
  VersionConflict,
  WhillyError,
} from "@whilly/core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "../ports/index.js";

/**
 * The `detail` of every 503. A store error's own message comes from the database driver and can name
 * the database's host, port, user and database (`connect ECONNREFUSED 10.0.0.5:5432`), none of which
 * a client needs in order to retry; the log gets the message instead.
 */
export const UNAVAILABLE_DETAIL = "the task store is unavailable; try again";

/**
 * Maps any error to protocol v1's envelope. Our own client errors (4xx) keep their message; a
 * retryable one (the store is unavailable) is a 503 with {@link UNAVAILABLE_DETAIL}, logged as
 * `http.store_unavailable` with its cause; anything else is a bug, logged in full and answered with a
 * generic 500. Either way no internals (or secrets) reach the caller.
 */
export function errorResponse(err: unknown, c: Context, log: Logger | undefined): Response {
  const { status, body } = describeError(err);
  if (status === 503) log?.("warn", "http.store_unavailable", { path: c.req.path, error: errorSummary(err) });
  else if (status >= 500)
    log?.("error", "http.unhandled_error", { path: c.req.path, error: errorSummary(err) });
  if (status === 401) c.header("WWW-Authenticate", 'Bearer realm="whilly"');
  return c.json(body, status);
}

function describeError(err: unknown): { status: ContentfulStatusCode; body: ErrorEnvelope } {
  // A fence on a task that does not exist in the named plan: nothing to conflict with.
  if (err instanceof VersionConflict && err.actualVersion === undefined && err.actualStatus === undefined) {
    const missing = new TaskNotFound(err.taskId, err.planId);
    return { status: 404, body: envelope(missing.code, missing.message, err.taskId) };
  }
  if (err instanceof VersionConflict) {
    return {
      status: 409,
      body: {
        ...envelope(err.code, err.message, err.taskId),
        expected_version: err.expectedVersion,
        actual_version: err.actualVersion ?? null,
        actual_status: err.actualStatus ?? null,
      },
    };
  }
  if (err instanceof NotOwner) {
    return {
      status: 409,
      body: {
        ...envelope(err.code, err.message, err.taskId),
        expected_version: err.version,
        actual_version: err.version,
        actual_status: err.status,
      },
    };
  }
  if (err instanceof TaskNotFound) return { status: 404, body: envelope(err.code, err.message, err.taskId) };
  if (err instanceof PlanNotFound) return { status: 404, body: envelope(err.code, err.message, null) };
  if (err instanceof PlanConflict) {
    return { status: 409, body: { ...envelope(err.code, err.message, null), plan_id: err.existingPlanId } };
  }
  if (err instanceof InvalidInput || err instanceof PlanInvalid) {
    return { status: 422, body: envelope(err.code, err.message, null) };
  }
  if (err instanceof Unauthorized) {
    const code =
      err.credential === "bootstrap"
        ? "missing_or_invalid_bootstrap"
        : err.credential === "reader"
          ? "missing_or_invalid_read_token"
          : "missing_or_invalid_bearer";
    return { status: 401, body: envelope(code, err.message, null) };
  }
  // The protocol's one 403: a per-worker bearer acting for another worker id.
  if (err instanceof Forbidden)
    return { status: 403, body: envelope("worker_id_mismatch", err.message, null) };
  if (err instanceof WhillyError && err.retryable) {
    return { status: 503, body: envelope(err.code, UNAVAILABLE_DETAIL, null) };
  }
  return {
    status: 500,
    body: envelope("internal_error", "internal error; see the control plane's log", null),
  };
}

function envelope(code: string, detail: string, taskId: string | null): ErrorEnvelope {
  return { error_code: code, detail, task_id: taskId };
}
