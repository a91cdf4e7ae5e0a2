import {
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  PlanNotFound,
  redactJson,
  TaskNotFound,
  type TaskRecord,
} from "@whilly/core";
import { Hono } from "hono";
import type { AppDeps } from "../deps.js";
import { toTaskPayload } from "../payload.js";
import { toEventPayload } from "../read-payload.js";
import { readerCredential } from "../reader.js";
import { ATTEMPT_EVENT_TYPES, taskAttempts } from "../task-attempts.js";
import { waitingForPayload } from "./plans.js";

/** The task page's history: at most this many of the task's latest events. */
export const TASK_DETAIL_EVENTS = 200;

/** Attempts are read from at most this many of the task's latest claim and end events. */
const ATTEMPT_EVENTS = 1000;

/**
 * `GET /api/v1/plans/{planId}/tasks/{taskId}` for readers (mounted at `/api/v1/plans`; a session
 * cookie serves too): everything the dashboard's task page shows, in one request:
 * - `task`: the list route's task (`waiting_for` included) plus `last_failure` (the last failed
 *   attempt's reason, check, exit code and output tail, or `null`), `work` (`{branch, commit}` a DONE
 *   task reported, or `null`) and `verification_output` (the failing check's output tail when the
 *   last failure was a check, else `null`);
 * - `attempts`: one per claim, oldest first (see `taskAttempts`);
 * - `events`: the task's latest {@link TASK_DETAIL_EVENTS} events, oldest first, as `/events` serves them.
 * Texts are redacted like the rest of the read API. A missing plan or task is a 404 envelope.
 */
export function taskDetailRoutes(deps: AppDeps) {
  return new Hono().get("/:planId/tasks/:taskId", readerCredential(deps, { session: true }), async (c) => {
    const { planId, taskId } = c.req.param();
    const secrets = deps.secrets ?? [];
    const read = await deps.withStore(async (store) => {
      const plan = await store.getPlan(planId);
      if (!plan) throw new PlanNotFound(planId);
      const task = await store.getTask(planId, taskId);
      if (!task) throw new TaskNotFound(taskId, planId);
      return {
        plan,
        task,
        waiting: await store.listWaiting(planId, {
          onlineWithinMs: deps.settings.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
        }),
        attemptEvents: await store.listTaskEvents(planId, taskId, {
          limit: ATTEMPT_EVENTS,
          eventTypes: ATTEMPT_EVENT_TYPES,
        }),
        events: await store.listTaskEvents(planId, taskId, { limit: TASK_DETAIL_EVENTS }),
      };
    });
    const listed = toTaskPayload(read.task, read.plan);
    return c.json({
      task: {
        ...listed,
        previous_failure: redactJson(listed.previous_failure, secrets),
        waiting_for: waitingForPayload(read.waiting.find((w) => w.taskId === taskId)?.waitingFor),
        last_failure: redactJson(listed.previous_failure, secrets),
        work: read.task.work ? { branch: read.task.work.branch, commit: read.task.work.commit } : null,
        verification_output: verificationOutput(read.task, secrets),
      },
      attempts: taskAttempts(read.attemptEvents, secrets),
      events: read.events.map((e) => toEventPayload(e, secrets)),
    });
  });
}

/** The failing check's output tail, when the task's last failure was one of its checks. */
function verificationOutput(task: TaskRecord, secrets: readonly string[]): string | null {
  const failure = task.lastFailure;
  if (task.status === "DONE" || failure?.step === undefined || failure.output_tail === undefined) return null;
  return redactJson(failure.output_tail, secrets);
}
