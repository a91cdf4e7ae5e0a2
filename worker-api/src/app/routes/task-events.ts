import { TaskNotFound, taskEventRequestSchema, unstorableText } from "@whilly/core";
import { Hono } from "hono";
import { asWorker, checkedInput, costFromBody, readWorkerBody, workerCredential } from "../caller.js";
import type { AppDeps } from "../deps.js";
import { keptDetail } from "../redaction.js";

/**
 * `POST /tasks/{id}/events`: an event a worker reports about a task it ran, and its cost (the failure
 * analysis after a `FAIL`, docs/triz.md#on-a-failed-task). Only `triz.*` types (422 naming
 * `event_type` otherwise); the caller must act as `worker_id` and that worker must have claimed the
 * task once (403 otherwise), since the analysis ends after the task may have moved to another worker.
 * The event and its cost count once per `idempotency_key`: a retried request answers
 * `{"recorded": false}` and writes nothing.
 */
export function taskEventRoutes(deps: AppDeps) {
  const secrets = deps.secrets ?? [];
  return new Hono().post("/:taskId/events", workerCredential(deps), async (c) => {
    const body = await readWorkerBody(deps, c, taskEventRequestSchema);
    const taskId = c.req.param("taskId");
    const costMicroUsd = await checkedInput(deps, c, () => costFromBody(body.cost_usd));
    const recorded = await asWorker(deps, c, body.worker_id, async (store) => {
      if (unstorableText(taskId) !== undefined || unstorableText(body.plan_id) !== undefined)
        throw new TaskNotFound(taskId);
      return store.recordTaskEvent({
        planId: body.plan_id,
        taskId,
        workerId: body.worker_id,
        eventType: body.event_type ?? undefined,
        payload: keptDetail(body.payload, secrets) ?? {},
        costMicroUsd,
        idempotencyKey: body.idempotency_key,
      });
    });
    return c.json(recorded);
  });
}
