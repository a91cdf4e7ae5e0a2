import type { ComponentName } from "./components.js";

/**
 * Which credential an operation takes. `reader`: the admin token or a read-only token;
 * `reader_or_worker` takes a live worker bearer too; `reader_or_oidc` a GitHub Actions OIDC token too;
 * `plan_writer`: the admin token or a GitHub Actions OIDC token; `admin`: the admin token only;
 * `sign_in_code`: a one-time code in the body. Every `reader` route that answers GET also takes the
 * session cookie (`sessionCookie`), a read credential only.
 */
export type OperationAuth =
  | "none"
  | "worker"
  | "bootstrap"
  | "reader"
  | "reader_or_worker"
  | "reader_or_oidc"
  | "plan_writer"
  | "admin"
  | "sign_in_code";

/**
 * A response: its description and, unless it has no body, the component schema of the body; `stream`
 * for a `text/event-stream` body (frames described in the description).
 */
export type OperationResponse = {
  readonly description: string;
  readonly body?: ComponentName;
  readonly stream?: true;
};

/** A query parameter (path parameters are read from the path): a whole number, or a string by pattern. */
export type QueryParameter = {
  readonly name: string;
  readonly description: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
};

/** One route of the control plane, as the OpenAPI document describes it. */
export type Operation = {
  readonly method: "get" | "post" | "delete";
  /** OpenAPI style: `{param}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: OperationAuth;
  readonly request?: ComponentName;
  readonly query?: readonly QueryParameter[];
  readonly responses: Readonly<Record<number, OperationResponse>>;
};

const E = "ErrorEnvelope" as const;
const unauthorized = (code: string): OperationResponse => ({
  description: `\`${code}\`: credentials missing, malformed, unknown or revoked. Carries \`WWW-Authenticate: Bearer realm="whilly"\`.`,
  body: E,
});
const bearer401 = unauthorized("missing_or_invalid_bearer");
const reader401 = unauthorized("missing_or_invalid_read_token");
const admin401 = unauthorized("missing_or_invalid_admin_token");
const readOnly403: OperationResponse = {
  description: "`read_only_token`: a read-only token may not act.",
  body: E,
};
const forbidden: OperationResponse = {
  description: "`worker_id_mismatch`: a per-worker token acting for another worker id.",
  body: E,
};
const invalid: OperationResponse = {
  description: "`invalid_input`: the body or a parameter breaks a rule; `detail` names the field.",
  body: E,
};
const unavailable: OperationResponse = {
  description: "`store_unavailable`: the database did not answer; retry with backoff.",
  body: E,
};
const planMissing: OperationResponse = { description: "`plan_not_found`.", body: E };
const oidc403: OperationResponse = {
  description:
    "`repository_not_allowed` (the OIDC token's repository is not in WHILLY_OIDC_REPOSITORIES) or `issue_of_another_repository` (the issue is not of the token's repository).",
  body: E,
};

/** The task transition routes share their errors. */
function transition(
  verb: "start" | "complete" | "fail" | "release",
  request: ComponentName,
  summary: string,
) {
  return {
    method: "post",
    path: `/tasks/{taskId}/${verb}`,
    operationId: `${verb}Task`,
    summary,
    description:
      "Fenced by owner and version. Send `plan_id`; without it the task id is resolved among the tasks this worker holds.",
    auth: "worker",
    request,
    responses: {
      200: { description: "The task after the transition.", body: "TaskResponse" },
      401: bearer401,
      403: forbidden,
      404: {
        description: "`task_not_found`: no such task (or, without `plan_id`, none held by this worker).",
        body: E,
      },
      409: {
        description:
          "`version_conflict` or `not_owner`: the task moved on or another worker holds it; nothing changed. Adds `expected_version`, `actual_version` and `actual_status`.",
        body: E,
      },
      422: invalid,
      503: unavailable,
    },
  } as const satisfies Operation;
}

/** Every route the control plane serves. A test checks this list against the app's routes. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/health",
    operationId: "health",
    summary: "Liveness and database check",
    description: "Runs `SELECT 1`. The 503 detail names the kind of failure only, never a host or secret.",
    auth: "none",
    responses: {
      200: { description: "The database answers.", body: "HealthResponse" },
      503: { description: "The database does not answer.", body: "HealthResponse" },
    },
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "openApiDocument",
    summary: "This document",
    auth: "reader",
    responses: { 200: { description: "The OpenAPI 3.1 document." }, 401: reader401 },
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics",
    description:
      "The Prometheus text format (version 0.0.4, `text/plain`), read from the database per scrape; docs/metrics.md lists every metric.",
    auth: "reader",
    responses: {
      200: { description: "The metrics, in the Prometheus text format." },
      401: reader401,
      403: { description: "`worker_token`: a worker's bearer is not a read credential.", body: E },
      503: unavailable,
    },
  },
  {
    method: "post",
    path: "/workers/register",
    operationId: "registerWorker",
    summary: "Register a worker and receive its bearer",
    description:
      "Takes the bootstrap token only. The token in the reply is shown once (only its SHA-256 is stored): a JWT whose `sub` claim is the worker id.",
    auth: "bootstrap",
    request: "RegisterRequest",
    responses: {
      201: { description: "Registered.", body: "RegisterResponse" },
      401: unauthorized("missing_or_invalid_bootstrap"),
      422: invalid,
      500: { description: "`worker_id_collision`: no free id after several draws; retry.", body: E },
      503: unavailable,
    },
  },
  {
    method: "post",
    path: "/workers/{workerId}/heartbeat",
    operationId: "heartbeat",
    summary: "Record liveness and renew the worker's leases",
    auth: "worker",
    request: "HeartbeatRequest",
    responses: {
      200: { description: "`ok: false` when the worker row no longer exists.", body: "HeartbeatResponse" },
      400: { description: "`worker_id_mismatch`: the path and body worker ids differ.", body: E },
      401: bearer401,
      403: forbidden,
      422: invalid,
      503: unavailable,
    },
  },
  {
    method: "post",
    path: "/tasks/claim",
    operationId: "claimTask",
    summary: "Claim the most urgent ready task of a plan (long poll)",
    description:
      "Waits up to the server's claim timeout (at most 30 s) for a task to become ready, then answers 204.",
    auth: "worker",
    request: "ClaimRequest",
    responses: {
      200: {
        description:
          "A task, leased to this worker, its plan context, and its dependencies' work (`dependency_work`).",
        body: "ClaimResponse",
      },
      204: { description: "Nothing became ready in time; ask again." },
      401: bearer401,
      403: forbidden,
      422: invalid,
      503: unavailable,
    },
  },
  transition("start", "StartRequest", "CLAIMED → IN_PROGRESS"),
  transition(
    "complete",
    "CompleteRequest",
    "→ DONE, recording the attempt's cost and, when sent, the branch and commit holding its work",
  ),
  transition(
    "fail",
    "FailRequest",
    "→ PENDING to retry after a backoff while attempts are left, else → FAILED; records the attempt's cost",
  ),
  transition("release", "ReleaseRequest", "→ PENDING, giving the task back"),
  {
    method: "post",
    path: "/tasks/{taskId}/events",
    operationId: "reportTaskEvent",
    summary: "An event about a task the worker ran (the failure analysis), and what it cost",
    description:
      "`event_type` is `triz.contradiction` or `triz.error` (`null`: the cost alone). The worker must have claimed the task once. The event and its cost, added to the task's and the plan's spend like an attempt's, count once per `idempotency_key`.",
    auth: "worker",
    request: "TaskEventRequest",
    responses: {
      200: {
        description: "`recorded`: false when the key was used already and nothing was written.",
        body: "TaskEventResponse",
      },
      401: bearer401,
      403: {
        description:
          "`worker_id_mismatch` (a per-worker token acting for another worker id) or `not_task_worker` (the worker never claimed the task).",
        body: E,
      },
      404: { description: "`task_not_found`: the plan has no such task.", body: E },
      422: invalid,
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/plans",
    operationId: "listPlans",
    summary: "Every plan with task counts, budget and spend; or the plan of one GitHub issue",
    description:
      "With `github_issue_ref`, only the plan made from that issue (none or one). That lookup also takes a GitHub Actions OIDC token, for an issue of the token's own repository.",
    auth: "reader_or_oidc",
    query: [
      {
        name: "github_issue_ref",
        description: "`owner/repo/N`: only the plan made from this issue (case-blind).",
        pattern: "^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+/[0-9]+$",
      },
    ],
    responses: {
      200: { description: "Plans by id.", body: "PlanListResponse" },
      401: reader401,
      403: oidc403,
      422: invalid,
      503: unavailable,
    },
  },
  {
    method: "post",
    path: "/api/v1/plans",
    operationId: "createPlan",
    summary: "Store a plan file, as `whilly plan import` does",
    description:
      "The body is a plan file (docs/plan-format.md), validated by the plan-file parser. 201 when the plan is new; 200 `created: false` when a plan with this id, or made from this GitHub issue, is already stored (new tasks added, stored ones kept). An OIDC caller may only store the plan of an issue of its own repository.",
    auth: "plan_writer",
    request: "PlanFile",
    query: [
      {
        name: "budget_usd",
        description:
          "The spend cap of a plan this request creates, USD (`5`, `12.50`); a stored plan keeps its own.",
        pattern: "^[0-9]+(\\.[0-9]+)?$",
      },
      {
        name: "create_only",
        description:
          "`true`: when the plan (or the issue's plan) is stored already, change nothing and answer 200 `created: false` (an intake that lost a race).",
        pattern: "^(true|false)$",
      },
    ],
    responses: {
      200: { description: "The plan was already stored.", body: "CreatePlanResponse" },
      201: { description: "The plan is new.", body: "CreatePlanResponse" },
      401: {
        description:
          "`missing_or_invalid_plan_token` (not the admin token nor an OIDC token), or `invalid_oidc_token` (its signature, issuer, audience or expiry is refused). Carries `WWW-Authenticate`.",
        body: E,
      },
      403: {
        description: `\`read_only_token\`: read tokens cannot write. ${oidc403.description}`,
        body: E,
      },
      409: {
        description:
          "`plan_conflict`: the GitHub issue already has a plan under another id (named in `plan_id`), or an OIDC caller's plan id is taken by a plan not made from its issue. Nothing changed.",
        body: E,
      },
      413: { description: "`payload_too_large`: the body is over 1 MiB.", body: E },
      422: {
        description:
          "`invalid_input`: the plan breaks the plan-file rules; `detail` lists every problem, each naming its field.",
        body: E,
      },
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/plans/{planId}",
    operationId: "getPlan",
    summary: "One plan with task counts by status, budget and spend",
    description: "Also takes a live worker bearer: the summary a worker checks its plan with.",
    auth: "reader_or_worker",
    responses: {
      200: { description: "The plan.", body: "PlanDetailResponse" },
      401: reader401,
      404: planMissing,
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/plans/{planId}/tasks",
    operationId: "listPlanTasks",
    summary: "A plan's tasks, by id",
    auth: "reader",
    responses: {
      200: { description: "The tasks.", body: "PlanTasksResponse" },
      401: reader401,
      404: planMissing,
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/plans/{planId}/tasks/{taskId}",
    operationId: "getPlanTask",
    summary: "One task with its attempts and latest events",
    description:
      "The task as the list serves it plus `last_failure`, `work` and `verification_output`; its attempts, read from its CLAIM, COMPLETE, FAIL, RELEASE and RESET events; its latest 200 events, oldest first.",
    auth: "reader",
    responses: {
      200: { description: "The task page's data.", body: "TaskDetailResponse" },
      401: reader401,
      404: { description: "`plan_not_found` or `task_not_found`.", body: E },
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/plans/{planId}/events",
    operationId: "listPlanEvents",
    summary: "A plan's audit events after an id, oldest first",
    auth: "reader",
    query: [
      { name: "after", description: "Return events with a larger id (default 0).", minimum: 0 },
      { name: "limit", description: "At most this many events (default 1000).", minimum: 1, maximum: 10_000 },
    ],
    responses: {
      200: {
        description: "A page of events; pass `next_after` as `after` for the next.",
        body: "PlanEventsResponse",
      },
      401: reader401,
      404: planMissing,
      422: invalid,
      503: unavailable,
    },
  },
  eventStream("/api/v1/plans/{planId}/events/stream", "streamPlanEvents", "A plan's audit events, live"),
  eventStream("/api/v1/events/stream", "streamEvents", "Every plan's audit events, live"),
  operatorTaskAction(
    "reset",
    "Retry one FAILED task",
    '`FAILED` → `PENDING` with a fresh set of attempts (last failure and spend kept); writes `RESET` `{reason: "retry_failed", mode: "task", version}` and wakes waiting claims.',
  ),
  operatorTaskAction(
    "release",
    "Take one claimed or running task back",
    '`CLAIMED`/`IN_PROGRESS` → `PENDING`; writes `RELEASE` `{version, reason: "admin_release", worker_id}` (the worker that held it). That worker\'s lease is gone: its late heartbeat renews nothing and its complete, fail or release gets 409. The attempt is not given back.',
  ),
  {
    method: "get",
    path: "/api/v1/workers",
    operationId: "listWorkers",
    summary: "Every registered worker, and whether workers are paused",
    description:
      "Workers by id with their hostname, recorded `status` (`online`/`offline`), last heartbeat, registration time and the agents and tags they advertised at their latest claim; `pause` is as `GET /api/v1/workers/pause` answers.",
    auth: "reader",
    responses: {
      200: { description: "The workers and the pause state.", body: "WorkerListResponse" },
      401: reader401,
      503: unavailable,
    },
  },
  {
    method: "get",
    path: "/api/v1/workers/pause",
    operationId: "getWorkersPause",
    summary: "Whether every worker is paused",
    auth: "reader",
    responses: {
      200: { description: "The pause state.", body: "WorkersPauseResponse" },
      401: reader401,
      503: unavailable,
    },
  },
  ...sessionOperations(),
  workersAction(
    "pause",
    "Pause every worker",
    'Every worker, also one that registers later, finishes its current task and claims nothing until resumed: its claims long-poll and answer 204. Writes `worker.paused` `{worker_id: null, reason: "admin", until: null, message: ""}` in each plan with unfinished tasks. Pausing paused workers changes nothing.',
  ),
  workersAction(
    "resume",
    "Resume paused workers",
    'Lifts the pause and wakes parked claims at once; writes `worker.resumed` `{worker_id: null, reason: "admin"}` in each plan with unfinished tasks. `resumed: false` when nothing was paused.',
  ),
];

/** Browser sessions (docs/protocol.md#browser-sessions): open, close, and redeem a sign-in code. */
function sessionOperations(): Operation[] {
  return [
    {
      method: "post",
      path: "/api/v1/session",
      operationId: "openSession",
      summary: "Trade a token for a browser session cookie",
      description:
        "Sets `whilly_session` (HttpOnly, SameSite=Strict, Path=/, Max-Age = WHILLY_SESSION_TTL; Secure over https). The cookie reads the read API's GET routes without an Authorization header and never acts: operator actions still take the bearer admin token. A read-role session ends when its read token is revoked. Takes no body.",
      auth: "reader",
      responses: {
        200: { description: "The session's role and expiry.", body: "SessionResponse" },
        401: reader401,
        503: unavailable,
      },
    },
    {
      method: "delete",
      path: "/api/v1/session",
      operationId: "closeSession",
      summary: "Clear the session cookie",
      auth: "none",
      responses: { 204: { description: "The cookie is cleared (Max-Age=0)." } },
    },
    {
      method: "post",
      path: "/api/v1/session/redeem",
      operationId: "redeemSignInCode",
      summary: "Trade a one-time sign-in code of `whilly run --ui` for an admin session",
      auth: "sign_in_code",
      request: "RedeemRequest",
      responses: {
        200: {
          description: "An admin session cookie, and the admin token for operator actions.",
          body: "RedeemResponse",
        },
        401: unauthorized("sign_in_code_invalid"),
        404: { description: "`not_found`: this control plane issues no sign-in codes.", body: E },
        422: invalid,
      },
    },
  ];
}

/** `POST /api/v1/plans/{planId}/tasks/{taskId}/reset|release`: an operator's action on one task. */
function operatorTaskAction(verb: "reset" | "release", summary: string, description: string): Operation {
  return {
    method: "post",
    path: `/api/v1/plans/{planId}/tasks/{taskId}/${verb}`,
    operationId: `${verb}TaskAsOperator`,
    summary,
    description: `${description} Takes no body.`,
    auth: "admin",
    responses: {
      200: { description: "The task after the action.", body: "TaskResponse" },
      401: admin401,
      403: readOnly403,
      404: { description: "`plan_not_found` or `task_not_found`.", body: E },
      409: {
        description:
          "`version_conflict`: the task is in a status the action may not leave; `actual_status` says which. Nothing changed.",
        body: E,
      },
      503: unavailable,
    },
  };
}

/** `POST /api/v1/workers/pause|resume`. */
function workersAction(verb: "pause" | "resume", summary: string, description: string): Operation {
  return {
    method: "post",
    path: `/api/v1/workers/${verb}`,
    operationId: `${verb}Workers`,
    summary,
    description: `${description} Takes no body.`,
    auth: "admin",
    responses: {
      200: { description: "The pause state after the action.", body: "WorkersPauseResponse" },
      401: admin401,
      403: readOnly403,
      503: unavailable,
    },
  };
}

/** The two server-sent-event streams of the audit log share their parameters and answers. */
function eventStream(path: string, operationId: string, summary: string): Operation {
  return {
    method: "get",
    path,
    operationId,
    summary,
    description:
      "Server-sent events: each audit event once it is committed (`id:` the event id, `data:` the event as in the events page, plus `worker_id`), a `: keep-alive` comment when idle, and after a replay of more than 1,000 events a `replay_truncated` frame and the end. A `Last-Event-ID` header (or `after`) replays what followed that event; without either only new events come.",
    auth: "reader",
    query: [
      {
        name: "after",
        description: "Replay the events after this event id (as `Last-Event-ID`).",
        minimum: 0,
      },
    ],
    responses: {
      200: { description: "A `text/event-stream` of the audit log.", stream: true },
      401: reader401,
      ...(path.includes("{planId}") ? { 404: planMissing } : {}),
      422: invalid,
      503: unavailable,
    },
  };
}
