import { Hono } from "hono";
import type { AppDeps } from "../deps.js";
import { toPausePayload, toWorkerPayload } from "../read-payload.js";
import { readerCredential } from "../reader.js";

/**
 * `GET /api/v1/workers` for readers (the admin token, a read-only token, or anyone when reads are
 * public; a worker's bearer is refused like on the rest of the read API): every registered worker by
 * id, and the operator's pause, so a dashboard shows who can run tasks and whether they may claim.
 */
export function workerReadRoutes(deps: AppDeps) {
  return new Hono().get("/", readerCredential(deps, { session: true }), async (c) => {
    const { workers, pause } = await deps.withStore(async (store) => ({
      workers: await store.listWorkers(),
      pause: await store.readWorkersPause(),
    }));
    return c.json({ workers: workers.map(toWorkerPayload), pause: toPausePayload(pause) });
  });
}
