import {
  type AttemptFailure,
  type AttemptProgress,
  type ClaimRequest,
  type ClaimResponse,
  claimResponseSchema,
  DEFAULT_AGENT,
  type DependencyWork,
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
  type TaskWork,
  TransportError,
  taskEventResponseSchema,
  taskResponseSchema,
  Unauthorized,
  type Verification,
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
  /** A completion: `passed` (whilly's checks ran and passed) or `unverified` (none could run). */
  verification?: Verification | undefined;
  /** A failure: what the next attempt is told; the control plane adds `attempt` and `worker_id`. */
  failure?: Omit<AttemptFailure, "attempt" | "worker_id"> | undefined;
  /** A completion in a worktree: the branch and commit holding the task's work. */
  work?: TaskWork | undefined;
};

/** A task whose lease a heartbeat renews, with what its attempt last did (for dashboards). */
export type HeartbeatTask = {
  readonly task: TaskPayload;
  readonly progress?: AttemptProgress | undefined;
};

/** A release's pause: a worker handing a task back on a provider limit stops claiming until then. */
export type ReleasePause = {
  /** When the worker claims again. */
  readonly until: Date;
  /** The provider's words, for the `worker.paused` event. */
  readonly message: string;
};

/** Options of {@link TaskClient.claim}. */
export type ClaimOptions = {
  /** Abandons the wait (the request is aborted; a `TransportError` is thrown). */
  readonly signal?: AbortSignal | undefined;
  /** What this worker can run now (agents and tags); none: an older worker's claim (`claude`, no tags). */
  readonly capabilities?: ClaimRequest["capabilities"] | undefined;
  /** The worker's `--agent`/`--model`/`--force-*`, for the control plane's choice of agent. */
  readonly choice?: ClaimRequest["choice"] | undefined;
};

/** What an attempt handed back before its report had cost: counted once per `idempotencyKey`. */
export type ReleaseSpend = {
  /** Decimal USD, e.g. `"0.012500"`. */
  readonly costUsd: string;
  readonly idempotencyKey: string;
};

/**
 * An event the worker reports about a task it ran, besides its attempts: the failure analysis's
 * finding (docs/triz.md#on-a-failed-task). `eventType` `null` reports the cost alone.
 */
export type TaskEventReport = {
  readonly eventType: string | null;
  readonly payload: JsonObject;
  /** What finding it cost, decimal USD, e.g. `"0.012500"`. */
  readonly costUsd: string;
  /** The event and its cost count once per key, however often the report is sent. */
  readonly idempotencyKey: string;
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
   * @returns the claimed task, its plan and its dependencies' work (see {@link dependencyWorkOf}), or
   *   `undefined` when nothing became ready in time (204).
   */
  claim(planId: string, options?: ClaimOptions): Promise<ClaimResponse | undefined>;
  start(task: TaskPayload): Promise<TaskPayload>;
  complete(task: TaskPayload, report: AttemptReport): Promise<TaskPayload>;
  fail(task: TaskPayload, reason: string, report: AttemptReport): Promise<TaskPayload>;
  /**
   * Hands `task` back; with `pause` (reason `rate_limited`) the control plane records `worker.paused`;
   * with `spend`, what the interrupted attempt cost counts on the plan (once per key).
   */
  release(
    task: TaskPayload,
    reason: string,
    pause?: ReleasePause,
    spend?: ReleaseSpend,
  ): Promise<TaskPayload>;
  /** Renews the leases of `running`, sending their progress (every lease the worker holds when omitted). */
  heartbeat(running?: readonly HeartbeatTask[]): Promise<HeartbeatResponse>;
  /**
   * Reports an event about `task`, which this worker ran (`POST /tasks/{id}/events`).
   * @returns false when the control plane had it already (its key was used).
   */
  reportEvent(task: Pick<TaskPayload, "id" | "plan_id">, event: TaskEventReport): Promise<boolean>;
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
        {
          worker_id: workerId,
          plan_id: planId,
          start: true,
          ...(claimOptions?.capabilities && !isDefaultAdvertisement(claimOptions.capabilities)
            ? { capabilities: claimOptions.capabilities }
            : {}),
          ...(claimOptions?.choice && Object.keys(claimOptions.choice).length > 0
            ? { choice: claimOptions.choice }
            : {}),
        },
        claimResponseSchema,
        claimOptions?.signal,
      ),
    async start(task) {
      const reply = await post(taskPath(task, "start"), fence(task), taskResponseSchema);
      return required(reply, "start").task;
    },
    async complete(task, report) {
      const body = {
        ...fence(task),
        cost_usd: report.costUsd,
        detail: report.detail,
        ...keyOf(report),
        ...(report.verification === undefined ? {} : { verification: report.verification }),
        ...(report.work === undefined ? {} : { branch: report.work.branch, commit: report.work.commit }),
      };
      return required(await post(taskPath(task, "complete"), body, taskResponseSchema), "complete").task;
    },
    async fail(task, reason, report) {
      const body = {
        ...fence(task),
        reason,
        cost_usd: report.costUsd,
        detail: report.detail,
        ...keyOf(report),
        ...(report.failure === undefined ? {} : { failure: jsonOnly(report.failure) }),
      };
      return required(await post(taskPath(task, "fail"), body, taskResponseSchema), "fail").task;
    },
    async release(task, reason, pause, spend) {
      const body = {
        ...fence(task),
        reason,
        ...(pause === undefined
          ? {}
          : {
              paused_until: pause.until.toISOString(),
              pause_message: pause.message.slice(0, MAX_PAUSE_MESSAGE),
            }),
        ...(spend === undefined ? {} : { cost_usd: spend.costUsd, idempotency_key: spend.idempotencyKey }),
        // The limited agent: the control plane may move the task to its plan's next fallback agent.
        ...(reason === "rate_limited" && task.agent ? { agent: task.agent } : {}),
      };
      return required(await post(taskPath(task, "release"), body, taskResponseSchema), "release").task;
    },
    async heartbeat(running) {
      const path = `/workers/${encodeURIComponent(workerId)}/heartbeat`;
      const tasks = running?.map(({ task, progress }) => {
        const sent = progress === undefined ? undefined : wireProgress(progress);
        return { plan_id: task.plan_id, task_id: task.id, ...(sent ? { progress: sent } : {}) };
      });
      const body = tasks === undefined ? { worker_id: workerId } : { worker_id: workerId, tasks };
      return required(await post(path, body, heartbeatResponseSchema), "heartbeat");
    },
    async reportEvent(task, event) {
      const body = {
        worker_id: workerId,
        plan_id: task.plan_id,
        event_type: event.eventType,
        payload: event.payload,
        cost_usd: event.costUsd,
        idempotency_key: event.idempotencyKey,
      };
      const path = `/tasks/${encodeURIComponent(task.id)}/events`;
      return required(await post(path, body, taskEventResponseSchema), "events").recorded;
    },
  };
}

/**
 * True for what a claim without capabilities means anyway (Claude Code, no tags): it is left out, so a
 * worker with only Claude Code claims exactly as one from before agents were chosen.
 */
function isDefaultAdvertisement(capabilities: NonNullable<ClaimRequest["capabilities"]>): boolean {
  return (
    capabilities.tags.length === 0 &&
    capabilities.agents.length === 1 &&
    capabilities.agents[0] === DEFAULT_AGENT
  );
}

/**
 * The claim reply's `dependency_work` (whilly's addition), in the order of the task's dependencies: the
 * dependencies whose worker reported a branch and commit. None from a server that sends none.
 */
export function dependencyWorkOf(claim: ClaimResponse): DependencyWork[] {
  return (claim.dependency_work ?? []).map((w) => ({
    taskId: w.task_id,
    branch: w.branch,
    commit: w.commit,
  }));
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

/** The longest `pause_message` the protocol accepts. */
const MAX_PAUSE_MESSAGE = 2048;

/**
 * Progress as the heartbeat's strict schema takes it: a whole turn count, a tool name of at most 256
 * characters and a phase of at most 64, so an odd value from the agent never makes a beat (and the
 * lease renewal it carries) refused.
 */
function wireProgress(progress: AttemptProgress): JsonObject | undefined {
  const out: JsonObject = {};
  const turns = progress.turns;
  if (turns !== undefined && Number.isSafeInteger(turns) && turns >= 0)
    out.turns = Math.min(turns, 2 ** 31 - 1);
  if (progress.last_tool) out.last_tool = progress.last_tool.slice(0, 256);
  if (progress.phase) out.phase = progress.phase.slice(0, 64);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A value as JSON carries it: `undefined` fields dropped. */
function jsonOnly(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
