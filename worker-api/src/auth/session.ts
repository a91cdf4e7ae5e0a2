import { errors, jwtVerify, SignJWT } from "jose";
import type { OpenedSession, Session, SessionRole } from "../ports/auth.js";
import { sha256Hex, utf8 } from "./secrets.js";
import { TOKEN_ISSUER } from "./worker-token.js";

/** The cookie that carries a browser's session (docs/protocol.md#browser-sessions). */
export const SESSION_COOKIE = "whilly_session";

/** Default of `WHILLY_SESSION_TTL`: 12 hours, in ms. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The `aud` of every session JWT, which no worker token carries. */
const SESSION_AUDIENCE = "whilly-session";
const HKDF_SALT = utf8("whilly browser-session key");
const HKDF_INFO = utf8("HS256 v1");

/**
 * The HMAC key of session cookies (32 bytes): HKDF-SHA-256 of the worker-token signing key (see
 * `deriveSigningKey`) under its own labels (salt `whilly browser-session key`, info `HS256 v1`). Every
 * replica and Workers isolate with the same configuration thus verifies the same cookies, and a
 * session cookie is never a valid worker token nor the reverse.
 */
export async function deriveSessionKey(signingKey: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const material = await crypto.subtle.importKey("raw", new Uint8Array(signingKey), "HKDF", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: HKDF_INFO },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** A session as its cookie holds it: {@link Session} plus, for role `admin`, the admin token's tag. */
export type SessionClaims = Session & { readonly adminTag?: string | undefined };

/**
 * A session cookie's value: a compact JWS (HS256) with `role`, `rtid` (the read token's id, role
 * `read` only), `atag` (role `admin`: see `adminTokenTag`), `iss` `whilly`, `aud` `whilly-session`,
 * `iat` and `exp` (seconds).
 * @param ttlMs how long it is honoured (whole seconds are kept; at least one).
 */
export async function mintSession(
  key: Uint8Array,
  session: { role: SessionRole; readTokenId?: string | undefined; adminTag?: string | undefined },
  ttlMs: number,
  now: number = Date.now(),
): Promise<OpenedSession> {
  const issuedAt = Math.floor(now / 1000);
  const maxAgeS = Math.max(1, Math.floor(ttlMs / 1000));
  const expires = issuedAt + maxAgeS;
  const claims =
    session.role === "read"
      ? { role: "read", rtid: session.readTokenId }
      : { role: "admin", atag: session.adminTag };
  const value = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expires)
    .sign(key);
  const opened: Omit<Session, "expiresAt"> =
    session.role === "read" ? { role: "read", readTokenId: session.readTokenId } : { role: "admin" };
  return { value, session: { ...opened, expiresAt: new Date(expires * 1000) }, maxAgeS };
}

/**
 * Checks a session cookie's signature (HS256 only), issuer, audience and expiry.
 * @returns the session, or `undefined` for a forged, expired or malformed value.
 */
export async function verifySession(key: Uint8Array, value: string): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(value, key, {
      algorithms: ["HS256"],
      issuer: TOKEN_ISSUER,
      audience: SESSION_AUDIENCE,
      requiredClaims: ["exp"],
    });
    const expiresAt = new Date((payload.exp ?? 0) * 1000);
    if (payload.role === "admin") {
      return {
        role: "admin",
        expiresAt,
        ...(typeof payload.atag === "string" ? { adminTag: payload.atag } : {}),
      };
    }
    if (payload.role === "read" && typeof payload.rtid === "string" && payload.rtid !== "") {
      return { role: "read", readTokenId: payload.rtid, expiresAt };
    }
    return undefined;
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}

/**
 * A tag of the admin token an admin session was opened with (22 hex digits of a labelled SHA-256):
 * the session is honoured only while the control plane's admin token has the same tag, so rotating
 * `WHILLY_ADMIN_TOKEN` ends every admin session. The cookie's holder knew the token already.
 */
export async function adminTokenTag(adminToken: string): Promise<string> {
  return (await sha256Hex(`whilly session admin:${adminToken}`)).slice(0, 22);
}
