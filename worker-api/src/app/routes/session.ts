import { redeemRequestSchema, Unauthorized } from "@whilly/core";
import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../../auth/session.js";
import type { OpenedSession } from "../../ports/index.js";
import { readBody } from "../body.js";
import type { AppDeps } from "../deps.js";

/**
 * Browser sessions, under `/api/v1/session` (docs/protocol.md#browser-sessions). A browser's
 * EventSource cannot send an `Authorization` header, so the dashboard trades a token for an HttpOnly
 * cookie once:
 * - `POST /` with `Authorization: Bearer <admin token or live read-only token>`: 200
 *   `{role, expires_at}` and `Set-Cookie: whilly_session=...; HttpOnly; SameSite=Strict; Path=/;
 *   Max-Age=<s>` (`Secure` when the request came over https);
 * - `DELETE /`: 204, the cookie cleared (no credential needed: it only forgets);
 * - `POST /redeem` `{code}`: a one-time code of `whilly run --ui` (`deps.signIn`) for an admin session
 *   plus the admin token itself (`{role, token, expires_at}`), which the dashboard keeps in memory for
 *   operator actions; 401 `sign_in_code_invalid` for a wrong, spent or expired code, 404 on a host
 *   that issues none.
 * The cookie is a read credential only (see `authenticateReadRequest`): operator actions still want
 * the bearer admin token, which is what defends them against cross-site requests.
 */
export function sessionRoutes(deps: AppDeps) {
  return new Hono()
    .post("/", async (c) => {
      const authorization = c.req.header("authorization");
      const opened = await deps.withStore((store) => deps.auth.openSession(authorization, store));
      deps.log?.("info", "session.opened", { role: opened.session.role });
      return c.json(withCookie(c, opened));
    })
    .delete("/", (c) => {
      deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
      return c.body(null, 204);
    })
    .post("/redeem", async (c) => {
      const signIn = deps.signIn;
      if (signIn === undefined) {
        const detail =
          "this control plane issues no sign-in codes; sign in with a token (POST /api/v1/session)";
        return c.json({ error_code: "not_found", detail, task_id: null }, 404);
      }
      const { code } = await readBody(c, redeemRequestSchema);
      if (!signIn.codes.redeem(code)) {
        throw new Unauthorized("the sign-in code is wrong, used or expired", {
          credential: "sign_in_code",
          hint: "run `whilly run --ui` again for a new link",
        });
      }
      const opened = await deps.auth.openAdminSession();
      deps.log?.("info", "session.opened", { role: "admin", via: "sign_in_code" });
      return c.json({ ...withCookie(c, opened), token: signIn.adminToken });
    });
}

/** Sets the session cookie; returns the reply's `{role, expires_at}`. */
function withCookie(
  c: Context,
  { value, session, maxAgeS }: OpenedSession,
): { role: string; expires_at: string } {
  setCookie(c, SESSION_COOKIE, value, { ...cookieOptions(c), maxAge: maxAgeS });
  return { role: session.role, expires_at: session.expiresAt.toISOString() };
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it), the whole host. */
function cookieOptions(c: Context) {
  const secure = new URL(c.req.url).protocol === "https:";
  return { httpOnly: true, sameSite: "Strict", path: "/", ...(secure ? { secure: true } : {}) } as const;
}
