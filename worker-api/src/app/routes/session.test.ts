import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminTokenTag, deriveSessionKey, mintSession } from "../../auth/session.js";
import { deriveSigningKey } from "../../auth/signing-key.js";
import { storedReadToken } from "../../auth/testing/read-token.js";
import { createTokenAuth, type TokenAuthOptions } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { sseReader } from "../../stream/testing/sse-reader.js";
import { routeHarness } from "../testing/route-harness.js";
import { openSession, withCookie } from "../testing/session-cookie.js";

// Browser sessions: who may open one, what its cookie reads, and that it never acts.

const BOOTSTRAP = "bootstrap-secret-for-session-tests";
const ADMIN = "admin-secret-for-session-tests-0123";
const TWELVE_HOURS_S = 12 * 60 * 60;

let fixture: StoreFixture;
let store: Store;
const harness = routeHarness(() => store);

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
  const plan = { project: "p", tasks: [{ id: "A", status: "pending", priority: "high", description: "a" }] };
  await store.importPlan(parsePlanObject(plan, "test"));
});

const app = (options: Partial<TokenAuthOptions> = {}) =>
  harness.app({ auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN, ...options }) });

function readToken(): Promise<{ id: string; token: string }> {
  return storedReadToken(store, "browser");
}

const READS = [
  "/api/v1/plans",
  "/api/v1/plans/p",
  "/api/v1/plans/p/tasks",
  "/api/v1/plans/p/tasks/A",
  "/api/v1/plans/p/events",
  "/api/v1/workers",
  "/api/v1/workers/pause",
];

describe("POST /api/v1/session", () => {
  it("opens an admin session with the admin token: an HttpOnly, SameSite=Strict cookie for 12 hours", async () => {
    const before = Date.now();
    const reply = await openSession(app(), ADMIN);
    expect(reply.status).toBe(200);
    expect(reply.body.role).toBe("admin");
    const expires = Date.parse(reply.body.expires_at ?? "");
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + TWELVE_HOURS_S * 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + TWELVE_HOURS_S * 1000);
    const attributes = (reply.setCookie ?? "").split(/;\s*/);
    expect(attributes[0]).toMatch(/^whilly_session=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(attributes).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/"]));
    expect(attributes).toContain(`Max-Age=${TWELVE_HOURS_S}`);
    expect(attributes).not.toContain("Secure");
  });

  it("opens a read session with a live read-only token, for the lifetime configured", async () => {
    const { token } = await readToken();
    const reply = await openSession(app({ sessionTtlMs: 60_000 }), token);
    expect(reply.status).toBe(200);
    expect(reply.body.role).toBe("read");
    expect(reply.setCookie).toContain("Max-Age=60");
  });

  it("marks the cookie Secure when the request came over https", async () => {
    const reply = await openSession(app(), ADMIN, { origin: "https://whilly.example" });
    expect(reply.setCookie?.split(/;\s*/)).toContain("Secure");
  });

  it("refuses no token, a wrong one, the bootstrap token and a worker's bearer, also with public reads", async () => {
    const a = app({ publicRead: true });
    const worker = await a.request("/workers/register", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BOOTSTRAP}` },
      body: '{"hostname":"box"}',
    });
    const workerToken = ((await worker.json()) as { token: string }).token;
    for (const token of [undefined, "wrong-token-0123456789", BOOTSTRAP, workerToken]) {
      const reply = await openSession(a, token);
      expect(reply.status, String(token)).toBe(401);
      expect(reply.body.error_code).toBe("missing_or_invalid_read_token");
      expect(reply.setCookie).toBeNull();
    }
  });

  it("refuses a revoked read token", async () => {
    const { id, token } = await readToken();
    await store.revokeReadToken(id);
    expect((await openSession(app(), token)).status).toBe(401);
  });
});

describe("the session cookie", () => {
  it("reads plans, tasks, events and workers, for an admin and a read session", async () => {
    const a = app();
    const { token } = await readToken();
    for (const bearer of [ADMIN, token]) {
      const { cookie } = await openSession(a, bearer);
      for (const path of READS) {
        const reply = await withCookie(a, path, cookie);
        expect(reply.status, `${path} with the cookie of ${bearer}`).toBe(200);
      }
      expect((await withCookie(a, "/api/v1/plans/p/tasks", cookie)).body.tasks[0].id).toBe("A");
      expect((await withCookie(a, "/api/v1/plans/p/tasks", cookie, "HEAD")).status).toBe(200);
    }
    // Without the cookie the same reads are refused.
    expect((await withCookie(a, "/api/v1/plans/p/tasks", undefined)).status).toBe(401);
  });

  it("opens the event streams, which deliver the plan's events", async () => {
    const a = app();
    const { cookie } = await openSession(a, ADMIN);
    const all = await withCookie(a, "/api/v1/events/stream", cookie);
    expect(all).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/event-stream/) });
    const response = await a.request("/api/v1/plans/p/events/stream?after=0", {
      headers: { cookie: cookie ?? "" },
    });
    expect(response.status).toBe(200);
    const frames = sseReader(response.body as ReadableStream<Uint8Array>);
    const first = await frames.nextEvent();
    await frames.cancel();
    expect(JSON.parse(first?.data ?? "{}")).toMatchObject({
      plan_id: "p",
      task_id: "A",
      event_type: "task.created",
    });
  });

  it("never acts: operator actions, plan creation and worker routes refuse it", async () => {
    const a = app();
    const { cookie } = await openSession(a, ADMIN);
    const actions: [string, string][] = [
      ["/api/v1/plans/p/tasks/A/reset", "missing_or_invalid_admin_token"],
      ["/api/v1/plans/p/tasks/A/release", "missing_or_invalid_admin_token"],
      ["/api/v1/workers/pause", "missing_or_invalid_admin_token"],
      ["/api/v1/workers/resume", "missing_or_invalid_admin_token"],
      ["/api/v1/plans", "missing_or_invalid_plan_token"],
    ];
    for (const [path, code] of actions) {
      const reply = await withCookie(a, path, cookie, "POST");
      expect(reply.status, path).toBe(401);
      expect(reply.body.error_code, path).toBe(code);
    }
    expect(await store.readWorkersPause()).toBeUndefined();
  });

  it("gives way to an Authorization header: a wrong bearer is refused whatever the cookie", async () => {
    const a = app();
    const { cookie } = await openSession(a, ADMIN);
    const response = await a.request("/api/v1/plans", {
      headers: { cookie: cookie ?? "", authorization: "Bearer wrong-token-0123456789" },
    });
    expect(response.status).toBe(401);
  });

  it("stops working as soon as its read token is revoked", async () => {
    const a = app();
    const { id, token } = await readToken();
    const { cookie } = await openSession(a, token);
    expect((await withCookie(a, "/api/v1/plans", cookie)).status).toBe(200);
    await store.revokeReadToken(id);
    const reply = await withCookie(a, "/api/v1/plans", cookie);
    expect(reply.status).toBe(401);
    expect(reply.body.error_code).toBe("invalid_session");
    expect(reply.body.detail).toContain("revoked");
  });

  it("refuses an expired cookie and a tampered one with 401 invalid_session, saying to sign in again", async () => {
    const a = app();
    const key = await deriveSessionKey(await deriveSigningKey({ bootstrapToken: BOOTSTRAP }));
    const adminTag = await adminTokenTag(ADMIN);
    const valid = await mintSession(key, { role: "admin", adminTag }, 60_000);
    expect((await withCookie(a, "/api/v1/plans", `whilly_session=${valid.value}`)).status).toBe(200);
    const expired = await mintSession(key, { role: "admin", adminTag }, 60_000, Date.now() - 120_000);
    const { cookie } = await openSession(a, ADMIN);
    const value = cookie?.slice("whilly_session=".length) ?? "";
    const [head, body, signature] = value.split(".");
    const forgedBody = Buffer.from(JSON.stringify({ role: "admin", exp: 9_999_999_999 })).toString(
      "base64url",
    );
    const tampered = [
      `${head}.${body}.${signature?.startsWith("A") ? "B" : "A"}${signature?.slice(1)}`,
      `${head}.${forgedBody}.${signature}`,
      "not-a-jwt",
    ];
    for (const bad of [expired.value, ...tampered]) {
      const reply = await withCookie(a, "/api/v1/plans/p/tasks", `whilly_session=${bad}`);
      expect(reply.status, bad).toBe(401);
      expect(reply.body.error_code).toBe("invalid_session");
      expect(reply.body.detail).toContain("sign in again");
    }
  });

  it("verifies across auth instances with the same configuration, as after a restart, and not after a rotation", async () => {
    const { cookie } = await openSession(app(), ADMIN);
    expect((await withCookie(app(), "/api/v1/plans", cookie)).status).toBe(200);
    const otherSecret = app({ signingSecret: "another-signing-secret-of-32-chars!!" });
    expect((await withCookie(otherSecret, "/api/v1/plans", cookie)).status).toBe(401);
    // Rotating or removing the admin token ends its sessions; read sessions do not depend on it.
    const { token } = await readToken();
    const read = await openSession(app(), token);
    const rotated = app({ adminToken: "rotated-admin-secret-0123456789" });
    expect((await withCookie(rotated, "/api/v1/plans", cookie)).status).toBe(401);
    expect((await withCookie(app({ adminToken: undefined }), "/api/v1/plans", cookie)).status).toBe(401);
    expect((await withCookie(rotated, "/api/v1/plans", read.cookie)).status).toBe(200);
  });

  it("is ignored when reads are public: no cookie is needed and a stale one does no harm", async () => {
    const a = app({ publicRead: true });
    expect((await withCookie(a, "/api/v1/plans", "whilly_session=stale")).status).toBe(200);
  });
});

describe("DELETE /api/v1/session", () => {
  it("answers 204 and clears the cookie", async () => {
    const response = await app().request("/api/v1/session", { method: "DELETE" });
    expect(response.status).toBe(204);
    const attributes = (response.headers.get("set-cookie") ?? "").split(/;\s*/);
    expect(attributes[0]).toBe("whilly_session=");
    expect(attributes).toEqual(
      expect.arrayContaining(["Max-Age=0", "HttpOnly", "SameSite=Strict", "Path=/"]),
    );
  });
});
