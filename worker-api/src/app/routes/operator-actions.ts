import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import type { AppDeps } from "../deps.js";
import { toTaskPayload } from "../payload.js";
import { toPausePayload } from "../read-payload.js";
import { readerCredential } from "../reader.js";

/**
 * Operator actions, under `/api/v1`, for the admin token only (docs/protocol.md#operator-actions):
 * - `POST /plans/{plan}/tasks/{task}/reset`: a `FAILED` task back to `PENDING` for another try;
 * - `POST /plans/{plan}/tasks/{task}/release`: a `CLAIMED`/`IN_PROGRESS` task back to `PENDING`
 *   (`admin_release`), its worker's lease gone;
 * - `POST /workers/pause` and `/workers/resume`: every worker stops claiming, or starts again.
 * Each answers 200 with what it did; a task in the wrong status is 409 `version_conflict` with
 * `actual_status`, a missing one 404. `GET /workers/pause` (readers) says whether workers are paused.
 * Credentials are checked before anything is read; none of these routes takes a body.
 */
export function operatorRoutes(deps: AppDeps) {
  const admin = adminCredential(deps);
  // A coordinator that hears the store's own ready signals needs no second wake-up for the same write.
  const notify = (planId: string) => {
    if (!deps.coordinator?.listensToStore) deps.coordinator?.notifyWork(planId);
  };
  return new Hono()
    .post("/plans/:planId/tasks/:taskId/reset", admin, async (c) => {
      const { planId, taskId } = c.req.param();
      const task = await deps.withStore((store) => store.resetTask(planId, taskId));
      deps.log?.("info", "operator.task_reset", { plan_id: planId, task_id: taskId });
      notify(planId);
      return c.json({ task: toTaskPayload(task) });
    })
    .post("/plans/:planId/tasks/:taskId/release", admin, async (c) => {
      const { planId, taskId } = c.req.param();
      const task = await deps.withStore((store) => store.releaseTask(planId, taskId));
      deps.log?.("info", "operator.task_released", { plan_id: planId, task_id: taskId });
      notify(planId);
      return c.json({ task: toTaskPayload(task) });
    })
    .get("/workers/pause", readerCredential(deps, { session: true }), async (c) => {
      const pause = await deps.withStore((store) => store.readWorkersPause());
      return c.json(toPausePayload(pause));
    })
    .post("/workers/pause", admin, async (c) => {
      const { pause } = await deps.withStore((store) => store.pauseWorkers());
      deps.log?.("info", "operator.workers_paused", {});
      return c.json(toPausePayload(pause));
    })
    .post("/workers/resume", admin, async (c) => {
      const { resumed, planIds } = await deps.withStore((store) => store.resumeWorkers());
      deps.log?.("info", "operator.workers_resumed", { resumed });
      for (const planId of planIds) notify(planId);
      return c.json({ ...toPausePayload(undefined), resumed });
    });
}

/** Middleware: the admin token only (see `AuthPort.authenticateAdmin`). @throws {Unauthorized} @throws {Forbidden} */
function adminCredential(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    await deps.auth.authenticateAdmin(c.req.header("authorization"));
    await next();
  };
}
