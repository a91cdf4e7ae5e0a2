import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppDeps } from "./deps.js";
import { errorResponse } from "./http-errors.js";
import { readerCredential } from "./reader.js";
import { eventRoutes } from "./routes/event-stream.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoutes } from "./routes/metrics.js";
import { openApiRoutes } from "./routes/openapi.js";
import { operatorRoutes } from "./routes/operator-actions.js";
import { planRoutes } from "./routes/plans.js";
import { sessionRoutes } from "./routes/session.js";
import { taskDetailRoutes } from "./routes/task-detail.js";
import { taskEventRoutes } from "./routes/task-events.js";
import { taskRoutes } from "./routes/tasks.js";
import { workerRoutes } from "./routes/workers.js";
import { workerReadRoutes } from "./routes/workers-read.js";

/**
 * Builds the control plane: protocol v1's task and worker routes, `GET /health` (open to anyone), the
 * read API, browser sessions and the operator actions (admin token only) under `/api/v1`, `GET /openapi.json` and `GET /metrics` (for readers only: see `readerCredential`),
 * over the injected store and auth. The same app runs in-process
 * (`app.request`), on Node and on Workers; each runtime's entry builds `deps`.
 * Errors of every route become protocol v1's envelope `{error_code, detail, task_id}` (docs/protocol.md).
 */
export function createApp(deps: AppDeps) {
  const app = new Hono()
    .use("*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge }))
    .route("/tasks", taskRoutes(deps))
    .route("/tasks", taskEventRoutes(deps))
    .route("/workers", workerRoutes(deps))
    .route("/health", healthRoutes(deps))
    .use("/openapi.json", readerCredential(deps))
    .use("/metrics", readerCredential(deps, { workers: "forbid" }))
    .route("/metrics", metricsRoutes(deps))
    .route("/api/v1", operatorRoutes(deps))
    .route("/api/v1/session", sessionRoutes(deps))
    .route("/api/v1/plans", planRoutes(deps))
    .route("/api/v1/plans", taskDetailRoutes(deps))
    .route("/api/v1/events", eventRoutes(deps))
    .route("/api/v1/workers", workerReadRoutes(deps))
    .route("/openapi.json", openApiRoutes());
  app.onError((err, c) => errorResponse(err, c, deps.log));
  app.notFound((c) =>
    c.json({ error_code: "not_found", detail: `no route ${c.req.method} ${c.req.path}`, task_id: null }, 404),
  );
  return app;
}

/** The control-plane app type. */
export type App = ReturnType<typeof createApp>;

/**
 * The largest request body the control plane reads (bytes). The biggest legitimate one, a fail with
 * its attempt detail (a 4 KiB output tail, a 2 KiB reason), is far smaller; the cap keeps a client,
 * authenticated or not, from making the server buffer arbitrary amounts of memory.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(c: Context): Response {
  const detail = `request body larger than ${MAX_BODY_BYTES} bytes`;
  return c.json({ error_code: "payload_too_large", detail, task_id: null }, 413);
}
