import { Forbidden, Unauthorized } from "@whilly/core";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../auth/session.js";
import type { Store } from "../store/store.js";
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
 *
 * With `options.session`, a browser's session cookie stands in for the bearer (see
 * {@link authenticateReadRequest}).
 * @throws {Unauthorized} (401 `missing_or_invalid_read_token`; `invalid_session` for a bad cookie).
 * @throws {Forbidden} (403 `worker_token`) with `workers: "forbid"` for a live worker bearer.
 */
export function readerCredential(
  deps: AppDeps,
  options: { workers?: "admit" | "forbid"; session?: boolean } = {},
): MiddlewareHandler {
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    await deps.withStore(async (store) => {
      try {
        await authenticateReadRequest(deps, c, store, options.session === true);
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

/**
 * A read request's credential: its bearer ({@link AppDeps.auth}'s `authenticateReader`), or, when
 * `acceptSession` is set, the request is a GET or HEAD and sends no `Authorization` header, the
 * `whilly_session` cookie (`authenticateSession`). The cookie is a READ credential only and is never
 * looked at on a POST or DELETE: the browser sends it along with any request, also one a hostile page
 * makes it send, so a route that changes anything wants the bearer (this is the CSRF defence, with
 * the cookie's `SameSite=Strict`; docs/protocol.md#browser-sessions).
 * @throws {Unauthorized} as those methods do.
 */
export async function authenticateReadRequest(
  deps: AppDeps,
  c: Context,
  store: Store,
  acceptSession: boolean,
): Promise<void> {
  const authorization = c.req.header("authorization");
  const readOnly = c.req.method === "GET" || c.req.method === "HEAD";
  const cookie =
    acceptSession && readOnly && authorization === undefined ? getCookie(c, SESSION_COOKIE) : undefined;
  if (cookie !== undefined && cookie !== "") return deps.auth.authenticateSession(cookie, store);
  return deps.auth.authenticateReader(authorization, store);
}
