import { EVENT_TYPES, heartbeatRequestSchema, type JsonObject, registerRequestSchema } from "@whilly/core";
import { Hono } from "hono";
import { newWorkerId } from "../../auth/worker-id.js";
import { readBody } from "../body.js";
import { asWorker, readWorkerBody, workerCredential } from "../caller.js";
import type { AppDeps } from "../deps.js";

/** Fresh ids drawn before registration gives up; with 64 random bits a second draw is already rare. */
const REGISTER_ATTEMPTS = 5;

/**
 * Worker routes:
 * - `POST /workers/register` (bootstrap token): stores a new worker and answers 201
 *   `{worker_id, token}`; the token is shown once and only its hash is kept.
 * - `POST /workers/{id}/heartbeat` (the worker's bearer): records liveness and renews its leases,
 *   answering `{ok, renewed}` (a count); a `worker.heartbeat` event `{worker_id, progress?}` per named
 *   task whose lease it renewed goes to the event buffer. With a task list it also releases, as `claim_lost`, the tasks
 *   the worker holds but left out of two lists since their claim (docs/worker.md).
 */
export function workerRoutes(deps: AppDeps) {
  return new Hono()
    .post("/register", async (c) => {
      // Credentials before the body, so a stranger learns nothing about what the body should be.
      await deps.auth.authenticateBootstrap(c.req.header("authorization"));
      const { hostname } = await readBody(c, registerRequestSchema);
      for (let attempt = 0; attempt < REGISTER_ATTEMPTS; attempt++) {
        const workerId = newWorkerId();
        const { token, tokenHash } = await deps.auth.issueWorkerToken(workerId);
        const worker = await deps.withStore((store) =>
          store.registerWorker({ workerId, hostname, tokenHash }),
        );
        if (worker) {
          deps.log?.("info", "worker.registered", { worker_id: workerId, hostname });
          return c.json({ worker_id: workerId, token }, 201);
        }
      }
      const detail = `no free worker id after ${REGISTER_ATTEMPTS} draws; retry registration`;
      return c.json({ error_code: "worker_id_collision", detail, task_id: null }, 500);
    })
    .post("/:workerId/heartbeat", workerCredential(deps), async (c) => {
      const body = await readWorkerBody(deps, c, heartbeatRequestSchema);
      const pathId = c.req.param("workerId");
      if (pathId !== body.worker_id) {
        const detail = `path worker id '${pathId}' differs from body worker_id '${body.worker_id}'`;
        return c.json({ error_code: "worker_id_mismatch", detail, task_id: null }, 400);
      }
      const running = body.tasks?.map((t) => ({
        planId: t.plan_id,
        taskId: t.task_id,
        progress: t.progress,
      }));
      const { ok, renewed, released } = await asWorker(
        deps,
        c,
        body.worker_id,
        (store) => store.heartbeat(body.worker_id, deps.settings.leaseMs, running),
        { register: true },
      );
      // Each running task's log shows its worker is alive; batched, since heartbeats are frequent. Only
      // renewed leases count: a named task the worker does not hold says nothing about that task.
      // The payload carries the attempt's progress too, so a dashboard on the stream shows the agent's step.
      if (running && renewed.length > 0 && deps.events) {
        const progressOf = new Map(running.map((t) => [`${t.planId}\u0000${t.taskId}`, t.progress]));
        await deps.events.append(
          renewed.map((t) => {
            const progress = progressOf.get(`${t.planId}\u0000${t.taskId}`);
            return {
              planId: t.planId,
              taskId: t.taskId,
              eventType: EVENT_TYPES.workerHeartbeat,
              payload: { worker_id: body.worker_id, ...(progress ? { progress: jsonOf(progress) } : {}) },
            };
          }),
        );
      }
      for (const task of released) {
        deps.log?.("info", "task.claim_lost", {
          plan_id: task.planId,
          task_id: task.taskId,
          worker_id: body.worker_id,
        });
      }
      return c.json({ ok, renewed: renewed.length });
    });
}

/** A heartbeat's progress as an event payload's JSON: its absent fields left out. */
function jsonOf(progress: Readonly<Record<string, string | number | undefined>>): JsonObject {
  return Object.fromEntries(
    Object.entries(progress).filter(([, value]) => value !== undefined),
  ) as JsonObject;
}
