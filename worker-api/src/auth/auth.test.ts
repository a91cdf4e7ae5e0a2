import { ConfigurationError, Unauthorized } from "@whilly/core";
import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { readBearer } from "./bearer.js";
import { constantTimeEqual, randomUrlSafe, sameSecret, sha256Hex, utf8 } from "./secrets.js";
import { deriveSigningKey } from "./signing-key.js";
import { newWorkerId } from "./worker-id.js";
import { mintWorkerToken, verifyWorkerToken } from "./worker-token.js";

function unauthorized(run: () => unknown): Unauthorized {
  try {
    run();
  } catch (error) {
    if (error instanceof Unauthorized) return error;
    throw error;
  }
  throw new Error("expected Unauthorized");
}

describe("secrets", () => {
  it("hashes to lowercase hex SHA-256", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("compares bytes over their whole length", () => {
    expect(constantTimeEqual(utf8("secret"), utf8("secret"))).toBe(true);
    expect(constantTimeEqual(utf8("secret"), utf8("secreT"))).toBe(false);
    expect(constantTimeEqual(utf8("secret"), utf8("secret!"))).toBe(false);
    expect(constantTimeEqual(utf8(""), utf8(""))).toBe(true);
    expect(constantTimeEqual(utf8("a"), new Uint8Array([97, 0]))).toBe(false);
  });

  it("compares secrets of any length", async () => {
    expect(await sameSecret("s3cret", "s3cret")).toBe(true);
    expect(await sameSecret("s3cret", "s3cret ")).toBe(false);
    expect(await sameSecret("", "x")).toBe(false);
  });

  it("draws url-safe random text", () => {
    const drawn = new Set(Array.from({ length: 50 }, () => randomUrlSafe(32)));
    expect(drawn.size).toBe(50);
    for (const text of drawn) expect(text).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newWorkerId()).toMatch(/^w-[A-Za-z0-9_-]{11}$/);
  });
});

describe("readBearer", () => {
  it("takes the token after a case-insensitive Bearer scheme, trimmed", () => {
    expect(readBearer("Bearer abc.DEF", "worker_bearer")).toBe("abc.DEF");
    expect(readBearer("bearer   abc  ", "worker_bearer")).toBe("abc");
    expect(readBearer("BEARER abc", "bootstrap")).toBe("abc");
  });

  it("names what is wrong and which credential the route wants", () => {
    expect(unauthorized(() => readBearer(undefined, "worker_bearer")).message).toBe("missing bearer token");
    expect(unauthorized(() => readBearer("  ", "worker_bearer")).message).toBe("missing bearer token");
    expect(unauthorized(() => readBearer("Basic dXNlcjpwdw==", "worker_bearer")).message).toBe(
      "invalid authorization scheme",
    );
    const empty = unauthorized(() => readBearer("Bearer   ", "bootstrap"));
    expect([empty.message, empty.credential]).toEqual(["empty bearer token", "bootstrap"]);
    expect(unauthorized(() => readBearer("abc", "worker_bearer")).credential).toBe("worker_bearer");
  });
});

describe("signing key", () => {
  it("derives 32 bytes from the bootstrap token, the same every time and different per token", async () => {
    const a = await deriveSigningKey({ bootstrapToken: "boot-1" });
    const again = await deriveSigningKey({ bootstrapToken: "boot-1" });
    const b = await deriveSigningKey({ bootstrapToken: "boot-2" });
    expect(a).toHaveLength(32);
    expect(Buffer.from(again).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(false);
    // The derived key is not the bootstrap token itself.
    expect(Buffer.from(a).toString("utf8")).not.toContain("boot-1");
  });

  it("uses WHILLY_TOKEN_SECRET as given, and refuses a short one", async () => {
    const secret = "x".repeat(40);
    const key = await deriveSigningKey({ bootstrapToken: "boot", signingSecret: secret });
    expect(Buffer.from(key).toString("utf8")).toBe(secret);
    await expect(deriveSigningKey({ bootstrapToken: "boot", signingSecret: "short" })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});

describe("worker tokens", () => {
  it("are JWTs whose sub is the worker id, readable without a library", async () => {
    const key = await deriveSigningKey({ bootstrapToken: "boot" });
    const token = await mintWorkerToken(key, "w-abc");
    const [header, payload, signature] = token.split(".");
    expect(JSON.parse(Buffer.from(header ?? "", "base64url").toString())).toEqual({
      alg: "HS256",
      typ: "JWT",
    });
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString());
    expect(claims).toMatchObject({ sub: "w-abc", iss: "whilly" });
    expect(typeof claims.jti).toBe("string");
    expect(claims.exp).toBeUndefined();
    expect(signature).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await verifyWorkerToken(key, token)).toBe("w-abc");
    // Two tokens for one id still differ (random jti), so their stored hashes never collide.
    expect(await mintWorkerToken(key, "w-abc")).not.toBe(token);
  });

  it("refuses tokens signed with another key, unsigned, tampered or from another issuer", async () => {
    const key = await deriveSigningKey({ bootstrapToken: "boot" });
    const other = await deriveSigningKey({ bootstrapToken: "other" });
    expect(await verifyWorkerToken(key, await mintWorkerToken(other, "w-abc"))).toBeUndefined();
    const unsigned = new UnsecuredJWT({}).setSubject("w-abc").setIssuer("whilly").encode();
    expect(await verifyWorkerToken(key, unsigned)).toBeUndefined();
    const [h, , s] = (await mintWorkerToken(key, "w-abc")).split(".");
    const swapped = Buffer.from(JSON.stringify({ sub: "w-evil", iss: "whilly" })).toString("base64url");
    expect(await verifyWorkerToken(key, `${h}.${swapped}.${s}`)).toBeUndefined();
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("w-abc")
      .setIssuer("someone-else")
      .sign(key);
    expect(await verifyWorkerToken(key, foreign)).toBeUndefined();
    expect(await verifyWorkerToken(key, "not a jwt")).toBeUndefined();
  });
});
