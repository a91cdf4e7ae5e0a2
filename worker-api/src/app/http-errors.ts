import {
  type Credential,
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
    return { status: 401, body: envelope(UNAUTHORIZED_CODES[err.credential], err.message, null) };
  }
  // A per-worker bearer acting for another worker id, or a plan creator beyond its rights.
  if (err instanceof Forbidden) return { status: 403, body: envelope(err.reason, err.message, null) };
  if (err instanceof WhillyError && err.retryable) {
    return { status: 503, body: envelope(err.code, UNAVAILABLE_DETAIL, null) };
  }
  return {
    status: 500,
    body: envelope("internal_error", "internal error; see the control plane's log", null),
  };
}

/** The 401 envelope's `error_code` for each credential. */
const UNAUTHORIZED_CODES: Record<Credential, string> = {
  worker_bearer: "missing_or_invalid_bearer",
  bootstrap: "missing_or_invalid_bootstrap",
  reader: "missing_or_invalid_read_token",
  plan_writer: "missing_or_invalid_plan_token",
  oidc: "invalid_oidc_token",
  admin: "missing_or_invalid_admin_token",
  session: "invalid_session",
  sign_in_code: "sign_in_code_invalid",
};

function envelope(code: string, detail: string, taskId: string | null): ErrorEnvelope {
  return { error_code: code, detail, task_id: taskId };
}
