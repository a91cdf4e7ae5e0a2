import { Unauthorized } from "@whilly/core";
import type { AuthPort } from "../ports/auth.js";
import { readBearer } from "./bearer.js";
import { sameSecret, sha256Hex } from "./secrets.js";
import { adminTokenTag, deriveSessionKey, mintSession, verifySession } from "./session.js";

/** What {@link sessionAuth} needs of the token auth it completes. */
export type SessionAuthOptions = {
  /** The worker-token signing key; the session key is derived from it (see `deriveSessionKey`). */
  readonly signingKey: () => Promise<Uint8Array>;
  /** `WHILLY_ADMIN_TOKEN`, trimmed; `undefined` for none. */
  readonly adminToken: string | undefined;
  /** `WHILLY_PUBLIC_READ=1`: reads need no credential, so a cookie is not checked either. */
  readonly publicRead: boolean;
  /** `WHILLY_SESSION_TTL` (ms): how long a session cookie is honoured. */
  readonly ttlMs: number;
};

const SIGN_IN_AGAIN =
  "sign in again: POST /api/v1/session with 'Authorization: Bearer <token>' (the dashboard's sign-in page does it)";

/**
 * The browser-session part of the token auth (docs/protocol.md#browser-sessions): `openSession`,
 * `openAdminSession` and `authenticateSession` of {@link AuthPort}.
 */
export function sessionAuth(
  options: SessionAuthOptions,
): Pick<AuthPort, "openSession" | "openAdminSession" | "authenticateSession"> {
  // Lazily, as the key: Workers allow no crypto outside a request.
  let tag: Promise<string> | undefined;
  const adminTag = () => {
    if (options.adminToken === undefined) return undefined;
    tag ??= adminTokenTag(options.adminToken);
    return tag;
  };
  const adminSession = async () =>
    mintSession(await sessionKey(), { role: "admin", adminTag: await adminTag() }, options.ttlMs);
  let key: Promise<Uint8Array> | undefined;
  const sessionKey = () => {
    key ??= options.signingKey().then(deriveSessionKey);
    return key;
  };
  const expired = () =>
    new Unauthorized("the session expired or is not valid; sign in again", {
      credential: "session",
      hint: SIGN_IN_AGAIN,
    });
  return {
    async openSession(authorization, store) {
      const token = readBearer(authorization, "reader");
      if (options.adminToken !== undefined && (await sameSecret(token, options.adminToken))) {
        return adminSession();
      }
      const readToken = await store.findReadTokenByHash(await sha256Hex(token));
      if (readToken !== undefined) {
        return mintSession(await sessionKey(), { role: "read", readTokenId: readToken.id }, options.ttlMs);
      }
      throw new Unauthorized(
        "invalid token: a session opens with the admin token or a live read-only token",
        {
          credential: "reader",
          hint: "use the control plane's WHILLY_ADMIN_TOKEN or a live token from `whilly token create --read-only` (whilly token list)",
        },
      );
    },

    openAdminSession: adminSession,

    async authenticateSession(value, store) {
      if (options.publicRead) return;
      const session = await verifySession(await sessionKey(), value);
      if (session === undefined) throw expired();
      if (session.role === "admin") {
        // The admin token was removed or rotated since: its sessions go with it.
        const current = await adminTag();
        if (current === undefined || session.adminTag !== current) throw expired();
        return;
      }
      if (session.readTokenId === undefined || !(await store.findReadTokenById(session.readTokenId))) {
        throw new Unauthorized("the session's read token was revoked; sign in again with a live token", {
          credential: "session",
          hint: `${SIGN_IN_AGAIN} with a live token (whilly token list)`,
        });
      }
    },
  };
}
