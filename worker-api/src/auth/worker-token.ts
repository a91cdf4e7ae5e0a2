import { errors, jwtVerify, SignJWT } from "jose";
import { randomUrlSafe } from "./secrets.js";

/** The `iss` claim of every worker token. */
export const TOKEN_ISSUER = "whilly";

/**
 * Mints a worker's bearer: a compact JWS (HS256) with claims `sub` (the worker id), `iss` `whilly`,
 * `iat` (seconds) and a random `jti` (so two tokens never share a hash). It has no `exp`: a token
 * lives until `whilly worker revoke` clears its stored hash. A worker reads its id from `sub` by
 * base64url-decoding the middle segment; no library is needed.
 */
export function mintWorkerToken(key: Uint8Array, workerId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(workerId)
    .setIssuer(TOKEN_ISSUER)
    .setIssuedAt()
    .setJti(randomUrlSafe(16))
    .sign(key);
}

/**
 * Checks a bearer's signature (HS256 only; `alg: none` and other algorithms are refused) and issuer.
 * @returns the `sub` claim, or `undefined` when the token is not a worker token signed with `key`.
 */
export async function verifyWorkerToken(key: Uint8Array, token: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], issuer: TOKEN_ISSUER });
    return typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : undefined;
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
