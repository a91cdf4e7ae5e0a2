import { Unauthorized } from "@whilly/core";
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "./deps.js";

/**
 * Middleware of the read API and `/openapi.json`: the caller must present the admin token or a live
 * read-only token, unless the host serves reads publicly ({@link AppDeps.auth}'s `authenticateReader`).
 * With `options.workers`, a live worker bearer is let in too: only `GET /api/v1/plans/{id}` takes it,
 * the plan summary (counts, no task text or output) a worker checks its `--plan` with at start.
 * @throws {Unauthorized} (401 `missing_or_invalid_read_token`).
 */
export function readerCredential(deps: AppDeps, options: { workers?: boolean } = {}): MiddlewareHandler {
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
      }
    });
    await next();
  };
}
