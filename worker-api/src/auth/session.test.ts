import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { adminTokenTag, deriveSessionKey, mintSession, verifySession } from "./session.js";
import { deriveSigningKey } from "./signing-key.js";
import { mintWorkerToken, verifyWorkerToken } from "./worker-token.js";

// Session cookies' values: their own key, derived from the worker-token key, so neither token passes
// for the other.

const signingKey = () => deriveSigningKey({ bootstrapToken: "bootstrap-secret-for-session-units" });

describe("session cookie values", () => {
  it("round-trip role, read token id and expiry in whole seconds, and end at their expiry", async () => {
    const key = await deriveSessionKey(await signingKey());
    const old = await mintSession(key, { role: "read", readTokenId: "rt-1" }, 90_500, 1_700_000_000_400);
    expect(old.maxAgeS).toBe(90);
    expect(old.session).toEqual({
      role: "read",
      readTokenId: "rt-1",
      expiresAt: new Date(1_700_000_090_000),
    });
    expect(await verifySession(key, old.value)).toBeUndefined();
    const live = await mintSession(key, { role: "read", readTokenId: "rt-1" }, 90_000);
    expect(await verifySession(key, live.value)).toEqual({ ...live.session });
  });

  it("keep a worker token and a session apart, both ways", async () => {
    const workerKey = await signingKey();
    const key = await deriveSessionKey(workerKey);
    expect(Buffer.from(key).equals(Buffer.from(workerKey))).toBe(false);
    const session = await mintSession(key, { role: "admin", adminTag: await adminTokenTag("a") }, 60_000);
    expect(await verifyWorkerToken(workerKey, session.value)).toBeUndefined();
    const worker = await mintWorkerToken(workerKey, "w-1");
    expect(await verifySession(key, worker)).toBeUndefined();
    expect(await verifySession(workerKey, session.value)).toBeUndefined();
  });

  it("refuse an unsigned token, an unknown role and a read session without its token id", async () => {
    const key = await deriveSessionKey(await signingKey());
    const exp = Math.floor(Date.now() / 1000) + 60;
    const body = Buffer.from(JSON.stringify({ role: "admin", iss: "whilly", aud: "whilly-session", exp }));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${body.toString("base64url")}.`;
    expect(await verifySession(key, unsigned)).toBeUndefined();
    for (const claims of [{ role: "root" }, { role: "read" }, { role: "read", rtid: "" }]) {
      const value = await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("whilly")
        .setAudience("whilly-session")
        .setExpirationTime(exp)
        .sign(key);
      expect(await verifySession(key, value), JSON.stringify(claims)).toBeUndefined();
    }
  });
});
