import { Forbidden, Unauthorized } from "@whilly/core";
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "./deps.js";

/**
 * Middleware of the read API, `/openapi.json` and `/metrics`: the caller must present the admin token
 * or a live read-only token, unless the host serves reads publicly ({@link AppDeps.auth}'s
 * `authenticateReader`). A live worker bearer is refused like any other credential, except that with
 * `options.workers`:
 * - `"admit"` lets it in: only `GET /api/v1/plans/{id}` takes it, the plan summary (counts, no task
 *   text or output) a worker checks its `--plan` with at start;
 * - `"forbid"` answers 403 rather than 401 (`/metrics`): the bearer is valid, it only may not read, so a
 *   scraper configured with a worker's token is told to use a read-only token instead.
 * @throws {Unauthorized} (401 `missing_or_invalid_read_token`).
 * @throws {Forbidden} (403 `worker_token`) with `workers: "forbid"` for a live worker bearer.
 */
export function readerCredential(
  deps: AppDeps,
  options: { workers?: "admit" | "forbid" } = {},
): MiddlewareHandler {
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    await deps.withStore(async (store) => {
      try {
        await deps.auth.authenticateReader(authorization, store);
      } catch (error) {
        if (!(options.workers && error instanceof Unauthorized && authorization !== undefined)) throw error;
        try {
          await deps.auth.authenticateWorker(authorization, store);
        } catch {
          throw error;
        }
        if (options.workers === "forbid") {
          throw new Forbidden("a worker's bearer is not a read credential", {
            reason: "worker_token",
            hint: "use the control plane's WHILLY_ADMIN_TOKEN or a token from `whilly token create --read-only`",
          });
        }
      }
    });
    await next();
  };
}
