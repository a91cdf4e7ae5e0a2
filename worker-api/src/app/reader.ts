import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "./deps.js";

/**
 * Middleware of the read API and `/openapi.json`: the caller must present the admin token or a live
 * read-only token, unless the host serves reads publicly ({@link AppDeps.auth}'s `authenticateReader`).
 * @throws {Unauthorized} (401 `missing_or_invalid_read_token`).
 */
export function readerCredential(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    await deps.withStore((store) => deps.auth.authenticateReader(authorization, store));
    await next();
  };
}
