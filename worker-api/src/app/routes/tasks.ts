import {
  claimRequestSchema,
  completeRequestSchema,
  failRequestSchema,
  releaseRequestSchema,
  startRequestSchema,
} from "@whilly/core";
import { Hono } from "hono";
import {
  asPresentedWorker,
  asWorker,
  checkedInput,
  costFromBody,
  readWorkerBody,
  resolvePlanId,
  workerCredential,
} from "../caller.js";
import type { AppDeps } from "../deps.js";
import { claimWithinBound } from "../long-poll.js";
import { toClaimedTaskPayload, toDependencyWorkPayload, toPlanPayload, toTaskPayload } from "../payload.js";
import { keptDetail, keptFailure, keptText } from "../redaction.js";
import { logTaskTransition } from "../task-log.js";

/**
 * Protocol v1 task routes: `POST /tasks/claim` and `POST /tasks/{id}/start|complete|fail|release`.
 * Every route screens the credential before reading the body, authenticates, checks the caller may act as `worker_id`, and lets the store fence the
 * mutation by owner and version (409 on a lost lease or a stale version).
 */
export function taskRoutes(deps: AppDeps) {
  // A coordinator that hears the store's own ready signals needs no second wake-up for the same write.
  const notify = (planId: string) => {
    if (!deps.coordinator?.listensToStore) deps.coordinator?.notifyWork(planId);
  };

  const credential = workerCredential(deps);
  const secrets = deps.secrets ?? [];

  return new Hono()
    .post("/claim", credential, async (c) => {
      const body = await readWorkerBody(deps, c, claimRequestSchema);
      const claimed = await claimWithinBound(deps, c, body);
      if (!claimed) return c.body(null, 204);
      logTaskTransition(deps.log, "task.claimed", claimed.task, body.worker_id);
      return c.json({
        task: toClaimedTaskPayload(claimed.task, claimed.plan),
        plan: claimed.plan ? toPlanPayload(claimed.plan) : null,
        dependency_work: toDependencyWorkPayload(claimed.task.dependencyWork),
      });
    })
    .post("/:taskId/start", credential, async (c) => {
      const body = await readWorkerBody(deps, c, startRequestSchema);
      const taskId = c.req.param("taskId");
      const task = await asWorker(deps, c, body.worker_id, async (store) => {
        const planId = await resolvePlanId(store, body.plan_id, body.worker_id, taskId);
        return store.start({ planId, taskId, workerId: body.worker_id, version: body.version });
      });
      return c.json({ task: toTaskPayload(task) });
    })
    .post("/:taskId/complete", credential, async (c) => {
      const body = await readWorkerBody(deps, c, completeRequestSchema);
      const taskId = c.req.param("taskId");
      const costMicroUsd = await checkedInput(deps, c, () => costFromBody(body.cost_usd));
      const { task } = await asPresentedWorker(deps, c, body.worker_id, async (store, bearer) => {
        const planId = await resolvePlanId(store, body.plan_id, body.worker_id, taskId);
        return store.complete({
          bearer,
          planId,
          taskId,
          workerId: body.worker_id,
          version: body.version,
          costMicroUsd,
          idempotencyKey: body.idempotency_key,
          detail: keptDetail(body.detail, secrets),
          verification: body.verification,
          // The schema takes both or neither.
          work:
            body.branch === undefined || body.commit === undefined
              ? undefined
              : { branch: body.branch, commit: body.commit },
        });
      });
      notify(task.planId);
      logTaskTransition(deps.log, "task.completed", task, body.worker_id, { costMicroUsd: reported(body) });
      return c.json({ task: toTaskPayload(task) });
    })
    .post("/:taskId/fail", credential, async (c) => {
      const body = await readWorkerBody(deps, c, failRequestSchema);
      const taskId = c.req.param("taskId");
      const costMicroUsd = await checkedInput(deps, c, () => costFromBody(body.cost_usd));
      const { task } = await asPresentedWorker(deps, c, body.worker_id, async (store, bearer) => {
        const planId = await resolvePlanId(store, body.plan_id, body.worker_id, taskId);
        return store.fail({
          bearer,
          planId,
          taskId,
          workerId: body.worker_id,
          version: body.version,
          reason: keptText(body.reason, secrets),
          costMicroUsd,
          idempotencyKey: body.idempotency_key,
          detail: keptDetail(body.detail, secrets),
          failure: keptFailure(body.failure, secrets),
          backoff: deps.settings.retryBackoff,
        });
      });
      // A retry may be claimable at once (no backoff): parked claims of the plan look again.
      if (task.status === "PENDING") notify(task.planId);
      logTaskTransition(deps.log, "task.failed", task, body.worker_id, {
        costMicroUsd: reported(body),
        reason: keptText(body.reason, secrets),
      });
      return c.json({ task: toTaskPayload(task) });
    })
    .post("/:taskId/release", credential, async (c) => {
      const body = await readWorkerBody(deps, c, releaseRequestSchema);
      const taskId = c.req.param("taskId");
      const costMicroUsd = await checkedInput(deps, c, () => costFromBody(body.cost_usd));
      const task = await asWorker(deps, c, body.worker_id, async (store) => {
        const planId = await resolvePlanId(store, body.plan_id, body.worker_id, taskId);
        return store.release({
          planId,
          taskId,
          workerId: body.worker_id,
          version: body.version,
          reason: keptText(body.reason, secrets),
          costMicroUsd,
          idempotencyKey: body.idempotency_key,
          agent: body.agent,
          pause:
            body.paused_until === undefined
              ? undefined
              : {
                  until: new Date(body.paused_until),
                  message:
                    body.pause_message === undefined ? undefined : keptText(body.pause_message, secrets),
                },
        });
      });
      notify(task.planId);
      logTaskTransition(deps.log, "task.released", task, body.worker_id, {
        costMicroUsd: reported(body),
        reason: keptText(body.reason, secrets),
      });
      return c.json({ task: toTaskPayload(task) });
    });
}

/** The cost a report carried, in micro-USD; `undefined` when it named none. */
function reported(body: { cost_usd?: number | string | null | undefined }): number | undefined {
  return body.cost_usd === null || body.cost_usd === undefined ? undefined : costFromBody(body.cost_usd);
}
