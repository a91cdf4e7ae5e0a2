import { heartbeatRequestSchema } from "@whilly/core";
import { Hono } from "hono";
import { readBody } from "../body.js";
import { asWorker } from "../caller.js";
import type { AppDeps } from "../deps.js";

/** Worker routes: `POST /workers/{id}/heartbeat` records liveness and renews the worker's leases. */
export function workerRoutes(deps: AppDeps) {
  return new Hono().post("/:workerId/heartbeat", async (c) => {
    const body = await readBody(c, heartbeatRequestSchema);
    const pathId = c.req.param("workerId");
    if (pathId !== body.worker_id) {
      const detail = `path worker id '${pathId}' differs from body worker_id '${body.worker_id}'`;
      return c.json({ error_code: "worker_id_mismatch", detail, task_id: null }, 400);
    }
    const result = await asWorker(deps, c, body.worker_id, (store) =>
      store.heartbeat(body.worker_id, deps.settings.leaseMs),
    );
    return c.json(result);
  });
}
