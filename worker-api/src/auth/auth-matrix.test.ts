import { parsePlanObject, type TaskPayload } from "@whilly/core";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../app/app.js";
import type { AppDeps } from "../app/deps.js";
import type { AuthPort, Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { inProcessAuth } from "./in-process.js";
import { sha256Hex } from "./secrets.js";
import { deriveSigningKey } from "./signing-key.js";
import { storedReadToken } from "./testing/read-token.js";
import { createTokenAuth } from "./token-auth.js";

const BOOTSTRAP = "bootstrap-secret-for-tests";
const LEGACY = "legacy-shared-token-for-tests";

let fixture: StoreFixture;
let store: Store;
let logged: { level: string; event: string; fields?: object }[];
const log: Logger = (level, event, fields) => logged.push({ level, event, ...(fields ? { fields } : {}) });

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  logged = [];
  const plan = parsePlanObject(
    {
      project: "p",
      tasks: [
        { id: "A", status: "pending", priority: "high", description: "a" },
        { id: "B", status: "pending", priority: "low", description: "b" },
      ],
    },
    "test",
  );
  await store.importPlan(plan);
});

function app(auth: AuthPort = createTokenAuth({ bootstrapToken: BOOTSTRAP, legacyToken: LEGACY, log })) {
  const deps: AppDeps = {
    withStore: (use) => use(store),
    auth,
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    log,
  };
  return createApp(deps);
}

/** A reply body: the envelope's fields, a task, or `{}` when the reply has none. */
type Body = { [field: string]: unknown; task?: TaskPayload };
type Reply = { status: number; body: Body; headers: Headers };

async function post(
  a: ReturnType<typeof app>,
  path: string,
  body: unknown,
  authorization?: string,
): Promise<Reply> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await a.request(path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers };
}

async function register(
  a: ReturnType<typeof app>,
  hostname = "box",
): Promise<{ worker_id: string; token: string }> {
  const reply = await post(a, "/workers/register", { hostname }, `Bearer ${BOOTSTRAP}`);
  expect(reply.status).toBe(201);
  return reply.body as { worker_id: string; token: string };
}

const claim = (a: ReturnType<typeof app>, workerId: string, authorization?: string) =>
  post(a, "/tasks/claim", { worker_id: workerId, plan_id: "p" }, authorization);

function expect401(reply: Reply, code: string, detail: string): void {
  expect(reply.status).toBe(401);
  expect(reply.headers.get("www-authenticate")).toBe('Bearer realm="whilly"');
  expect(reply.body).toEqual({ error_code: code, detail, task_id: null });
}

async function claimedTasks(): Promise<string[]> {
  return (await store.listTasks("p")).filter((t) => t.status !== "PENDING").map((t) => t.id);
}

describe("registration", () => {
  it("returns 201 with a w- id and a JWT naming it; only the token's hash is stored", async () => {
    const a = app();
    const { worker_id, token } = await register(a, "build-7");
    expect(worker_id).toMatch(/^w-[A-Za-z0-9_-]{11}$/);
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
    expect(claims.sub).toBe(worker_id);
    const stored = await store.findWorkerByTokenHash(await sha256Hex(token));
    expect(stored).toMatchObject({ workerId: worker_id, hostname: "build-7", status: "online" });
    expect(logged).toContainEqual({
      level: "info",
      event: "worker.registered",
      fields: { worker_id, hostname: "build-7" },
    });
    expect(JSON.stringify(logged)).not.toContain(token);
  });

  it("then claims, heartbeats and completes with the returned token", async () => {
    const a = app();
    const { worker_id, token } = await register(a);
    const claimed = await claim(a, worker_id, `Bearer ${token}`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.task?.id).toBe("A");
    const beat = await post(a, `/workers/${worker_id}/heartbeat`, { worker_id }, `Bearer ${token}`);
    expect(beat.body).toEqual({ ok: true, renewed: 1 });
    const done = await post(
      a,
      "/tasks/A/complete",
      { worker_id, plan_id: "p", version: claimed.body.task?.version },
      `bearer ${token}`,
    );
    expect(done.status).toBe(200);
  });

  it("draws another id when the first is taken, instead of failing", async () => {
    let collided = false;
    const colliding: Store = {
      ...store,
      registerWorker: async (input) => {
        if (!collided) {
          collided = true;
          // Someone else registered this very id a moment earlier.
          await store.registerWorker({ ...input, hostname: "earlier", tokenHash: "f".repeat(64) });
        }
        return store.registerWorker(input);
      },
    };
    const a = createApp({
      withStore: (use) => use(colliding),
      auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    const { worker_id, token } = await register(a, "later");
    expect(collided).toBe(true);
    const workers = await store.listWorkers();
    expect(workers.map((w) => w.hostname).sort()).toEqual(["earlier", "later"]);
    expect(workers.find((w) => w.hostname === "later")?.workerId).toBe(worker_id);
    expect((await claim(a, worker_id, `Bearer ${token}`)).status).toBe(200);
  });

  it("checks the bootstrap token before the body: 401 without it, 422 for a bad body with it", async () => {
    const a = app();
    expect401(
      await post(a, "/workers/register", {}, undefined),
      "missing_or_invalid_bootstrap",
      "missing bearer token",
    );
    const bad = await post(a, "/workers/register", { hostname: "" }, `Bearer ${BOOTSTRAP}`);
    expect(bad.status).toBe(422);
    expect(bad.body.error_code).toBe("invalid_input");
    expect(await store.listWorkers()).toEqual([]);
  });
});

describe("the auth matrix", () => {
  it("no token: 401 missing_or_invalid_bearer with WWW-Authenticate", async () => {
    expect401(await claim(app(), "w-x"), "missing_or_invalid_bearer", "missing bearer token");
    expect(await claimedTasks()).toEqual([]);
  });

  it("a malformed header: 401 naming the problem", async () => {
    const a = app();
    expect401(
      await claim(a, "w-x", "Basic Ym9vdDpzdHJhcA=="),
      "missing_or_invalid_bearer",
      "invalid authorization scheme",
    );
    expect401(await claim(a, "w-x", "Bearer"), "missing_or_invalid_bearer", "empty bearer token");
    expect401(
      await claim(a, "w-x", "Token abc"),
      "missing_or_invalid_bearer",
      "invalid authorization scheme",
    );
  });

  it("a wrong token: 401 invalid token", async () => {
    const a = app();
    const { worker_id } = await register(a);
    expect401(await claim(a, worker_id, "Bearer not-a-token"), "missing_or_invalid_bearer", "invalid token");
    expect(await claimedTasks()).toEqual([]);
  });

  it("a revoked token: 401 on the very next request", async () => {
    const a = app();
    const { worker_id, token } = await register(a);
    expect((await claim(a, worker_id, `Bearer ${token}`)).status).toBe(200);
    await store.revokeWorker(worker_id);
    expect401(await claim(a, worker_id, `Bearer ${token}`), "missing_or_invalid_bearer", "invalid token");
    const beat = await post(a, `/workers/${worker_id}/heartbeat`, { worker_id }, `Bearer ${token}`);
    expect(beat.status).toBe(401);
  });

  it("the bootstrap token on a task route: 401", async () => {
    const a = app();
    const { worker_id } = await register(a);
    expect401(await claim(a, worker_id, `Bearer ${BOOTSTRAP}`), "missing_or_invalid_bearer", "invalid token");
    expect(await claimedTasks()).toEqual([]);
  });

  it("a worker token on register: 401 missing_or_invalid_bootstrap", async () => {
    const a = app();
    const { token } = await register(a);
    const reply = await post(a, "/workers/register", { hostname: "x" }, `Bearer ${token}`);
    expect401(reply, "missing_or_invalid_bootstrap", "invalid bootstrap token");
    expect(await store.listWorkers()).toHaveLength(1);
  });

  it("another worker's id with my token: 403 worker_id_mismatch, nothing claimed", async () => {
    const a = app();
    const mine = await register(a, "mine");
    const theirs = await register(a, "theirs");
    const reply = await claim(a, theirs.worker_id, `Bearer ${mine.token}`);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      error_code: "worker_id_mismatch",
      detail: `token owner '${mine.worker_id}' cannot act as worker '${theirs.worker_id}'`,
      task_id: null,
    });
    expect(await claimedTasks()).toEqual([]);
    const beat = await post(
      a,
      `/workers/${theirs.worker_id}/heartbeat`,
      { worker_id: theirs.worker_id },
      `Bearer ${mine.token}`,
    );
    expect(beat.status).toBe(403);
  });

  it("a heartbeat whose path and body ids differ: 400 before the worker-id binding (403)", async () => {
    const a = app();
    const { worker_id, token } = await register(a);
    const reply = await post(
      a,
      `/workers/${worker_id}/heartbeat`,
      { worker_id: "w-other" },
      `Bearer ${token}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error_code).toBe("worker_id_mismatch");
  });

  it("a JWT signed with another secret: 401, even naming a real worker", async () => {
    const a = app();
    const { worker_id } = await register(a);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(worker_id)
      .setIssuer("whilly")
      .setIssuedAt()
      .sign(await deriveSigningKey({ bootstrapToken: "someone-elses-bootstrap" }));
    expect401(await claim(a, worker_id, `Bearer ${forged}`), "missing_or_invalid_bearer", "invalid token");
  });

  it("a correctly signed JWT whose hash is not stored: 401", async () => {
    const auth = createTokenAuth({ bootstrapToken: BOOTSTRAP });
    const a = app(auth);
    const { worker_id } = await register(a);
    // Signed with the server's own key for a real worker id, but never registered.
    const { token } = await auth.issueWorkerToken(worker_id);
    expect401(await claim(a, worker_id, `Bearer ${token}`), "missing_or_invalid_bearer", "invalid token");
  });

  it("a stored token whose sub names another worker than its row: 401", async () => {
    const auth = createTokenAuth({ bootstrapToken: BOOTSTRAP });
    const a = app(auth);
    const { token, tokenHash } = await auth.issueWorkerToken("w-named");
    await store.registerWorker({ workerId: "w-stored", hostname: "h", tokenHash });
    expect401(await claim(a, "w-named", `Bearer ${token}`), "missing_or_invalid_bearer", "invalid token");
    expect401(await claim(a, "w-stored", `Bearer ${token}`), "missing_or_invalid_bearer", "invalid token");
  });

  it("tokens from one replica work on another with the same bootstrap token or WHILLY_TOKEN_SECRET", async () => {
    const { worker_id, token } = await register(app());
    const replica = app(createTokenAuth({ bootstrapToken: BOOTSTRAP }));
    expect((await claim(replica, worker_id, `Bearer ${token}`)).status).toBe(200);

    const secret = "a-signing-secret-of-at-least-32-chars";
    const first = await register(app(createTokenAuth({ bootstrapToken: BOOTSTRAP, signingSecret: secret })));
    const rotated = app(createTokenAuth({ bootstrapToken: "rotated-bootstrap", signingSecret: secret }));
    expect((await claim(rotated, first.worker_id, `Bearer ${first.token}`)).status).toBe(200);
  });
});

describe("GET /metrics", () => {
  const ADMIN = "admin-token-for-the-auth-matrix";
  const scrape = async (a: ReturnType<typeof app>, authorization?: string) => {
    const response = await a.request("/metrics", authorization ? { headers: { authorization } } : {});
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  };
  const envelope = (text: string) => JSON.parse(text) as Record<string, unknown>;

  it("no token 401, read-only token 200, worker token 403, admin token 200; fails closed", async () => {
    const a = app(
      createTokenAuth({ bootstrapToken: BOOTSTRAP, legacyToken: LEGACY, adminToken: ADMIN, log }),
    );
    const worker = await register(a);
    const read = await storedReadToken(store);

    const none = await scrape(a);
    expect401(
      { ...none, body: envelope(none.text) },
      "missing_or_invalid_read_token",
      "missing bearer token",
    );
    const readOnly = await scrape(a, `Bearer ${read.token}`);
    expect(readOnly.status).toBe(200);
    expect(readOnly.text).toContain('whilly_tasks{plan_id="p",status="ready"} 2');
    const workerReply = await scrape(a, `Bearer ${worker.token}`);
    expect(workerReply.status).toBe(403);
    expect(envelope(workerReply.text)).toEqual({
      error_code: "worker_token",
      detail: "a worker's bearer is not a read credential",
      task_id: null,
    });
    expect((await scrape(a, `Bearer ${ADMIN}`)).status).toBe(200);

    // The deprecated shared token is a worker credential too; anything else is a 401 serving no
    // metric: the bootstrap token, a made-up one, revoked ones.
    expect((await scrape(a, `Bearer ${LEGACY}`)).status).toBe(403);
    for (const token of [BOOTSTRAP, "not-a-token-at-all"]) {
      const reply = await scrape(a, `Bearer ${token}`);
      expect(reply.status, token).toBe(401);
      expect(reply.text).not.toContain("whilly_");
    }
    await store.revokeReadToken(read.id);
    await store.revokeWorker(worker.worker_id);
    expect((await scrape(a, `Bearer ${read.token}`)).status).toBe(401);
    expect((await scrape(a, `Bearer ${worker.token}`)).status).toBe(401);
    // Anonymous scrapes only where the operator opened reads (WHILLY_PUBLIC_READ=1).
    const open = app(createTokenAuth({ bootstrapToken: BOOTSTRAP, publicRead: true }));
    expect((await scrape(open)).status).toBe(200);
    // No admin token configured and no public reads: nobody reads.
    expect(
      (await scrape(app(createTokenAuth({ bootstrapToken: BOOTSTRAP })), `Bearer ${ADMIN}`)).status,
    ).toBe(401);
  });
});

describe("the deprecated shared token", () => {
  it("acts for any worker id, but owner and version checks still apply", async () => {
    const a = app();
    const one = await register(a, "one");
    const two = await register(a, "two");
    const claimed = await claim(a, one.worker_id, `Bearer ${LEGACY}`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.task?.claimed_by).toBe(one.worker_id);
    expect((await claim(a, two.worker_id, `Bearer ${LEGACY}`)).status).toBe(200);
    const version = claimed.body.task?.version ?? -1;
    const theft = await post(
      a,
      "/tasks/A/complete",
      { worker_id: two.worker_id, plan_id: "p", version },
      `Bearer ${LEGACY}`,
    );
    expect(theft.status).toBe(409);
    expect(theft.body.error_code).toBe("not_owner");
    const stale = await post(
      a,
      "/tasks/A/complete",
      { worker_id: one.worker_id, plan_id: "p", version: version + 5 },
      `Bearer ${LEGACY}`,
    );
    expect(stale.status).toBe(409);
    expect(stale.body.error_code).toBe("version_conflict");
    expect((await store.getTask("p", "A"))?.status).toBe("CLAIMED");
  });

  it("is refused on register, and when not configured", async () => {
    const reply = await post(app(), "/workers/register", { hostname: "x" }, `Bearer ${LEGACY}`);
    expect401(reply, "missing_or_invalid_bootstrap", "invalid bootstrap token");
    await store.upsertWorker({ workerId: "w-1", hostname: "h" });
    const without = app(createTokenAuth({ bootstrapToken: BOOTSTRAP }));
    expect401(await claim(without, "w-1", `Bearer ${LEGACY}`), "missing_or_invalid_bearer", "invalid token");
  });

  // A fresh copy of the auth modules stands for a fresh process. Only the shared token's success path
  // runs on it: its errors would be another copy's classes, unknown to the app's error mapping.
  it("warns exactly once per process, across requests and auth instances", async () => {
    vi.resetModules();
    const { createTokenAuth: fresh } = await import("./token-auth.js");
    await store.upsertWorker({ workerId: "w-1", hostname: "h" });
    const first = app(fresh({ bootstrapToken: BOOTSTRAP, legacyToken: LEGACY, log }));
    const second = app(fresh({ bootstrapToken: BOOTSTRAP, legacyToken: LEGACY, log }));
    for (const a of [first, first, second]) {
      await post(a, "/workers/w-1/heartbeat", { worker_id: "w-1" }, `Bearer ${LEGACY}`);
    }
    const warnings = logged.filter((l) => l.level === "warn");
    expect(warnings).toEqual([
      {
        level: "warn",
        event: "auth.legacy_worker_token",
        fields: {
          message:
            "WHILLY_WORKER_TOKEN is deprecated; use per-worker tokens (whilly worker register). Suppress: WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1",
        },
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain(LEGACY);
  });

  it("does not warn when WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1 is set", async () => {
    vi.resetModules();
    const { createTokenAuth: fresh } = await import("./token-auth.js");
    await store.upsertWorker({ workerId: "w-1", hostname: "h" });
    const a = app(
      fresh({ bootstrapToken: BOOTSTRAP, legacyToken: LEGACY, log, suppressLegacyWarning: true }),
    );
    const reply = await post(a, "/workers/w-1/heartbeat", { worker_id: "w-1" }, `Bearer ${LEGACY}`);
    expect(reply.body).toEqual({ ok: true, renewed: 0 });
    expect(logged.filter((l) => l.level === "warn")).toEqual([]);
  });
});

describe("configuration", () => {
  it("refuses a blank or short bootstrap token, a short or equal shared token, and a short signing secret", () => {
    expect(() => createTokenAuth({ bootstrapToken: "  " })).toThrow(
      /WHILLY_WORKER_BOOTSTRAP_TOKEN is not set/,
    );
    expect(() => createTokenAuth({ bootstrapToken: "a" })).toThrow(
      /^WHILLY_WORKER_BOOTSTRAP_TOKEN is too short \(1 character\); it must be at least 16 random characters, make one with: openssl rand -hex 32$/,
    );
    expect(() => createTokenAuth({ bootstrapToken: BOOTSTRAP, legacyToken: "legacy" })).toThrow(
      /^WHILLY_WORKER_TOKEN is too short \(6 characters\)/,
    );
    expect(() => createTokenAuth({ bootstrapToken: BOOTSTRAP, legacyToken: BOOTSTRAP })).toThrow(
      /must differ/,
    );
    expect(() => createTokenAuth({ bootstrapToken: BOOTSTRAP, signingSecret: "short" })).toThrow(
      /at least 32 characters/,
    );
  });

  it("in-process auth refuses registration with 401", async () => {
    const reply = await post(
      app(inProcessAuth),
      "/workers/register",
      { hostname: "x" },
      `Bearer ${BOOTSTRAP}`,
    );
    expect(reply.status).toBe(401);
    expect(reply.body.error_code).toBe("missing_or_invalid_bootstrap");
  });
});
