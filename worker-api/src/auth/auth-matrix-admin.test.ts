import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { DEFAULT_EVENT_STREAM, startStoreEventFeed } from "../stream/index.js";
import type { StoreEventFeed } from "../stream/store-feed.js";
import { storedReadToken } from "./testing/read-token.js";
import { createTokenAuth } from "./token-auth.js";

// Who may call the event streams, /metrics and the operator actions: each route with no token, a
// read-only token, a worker's bearer and the admin token, against the embedded store.

const BOOTSTRAP = "bootstrap-secret-for-the-admin-matrix";
const ADMIN = "admin-secret-for-the-admin-matrix-01";

let store: Store;
let feed: StoreEventFeed;
let planNo = 0;
let planId: string;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  feed = await startStoreEventFeed({ store, pollMs: 60_000 });
});
afterAll(async () => {
  await feed?.close();
  await store?.close();
});
beforeEach(async () => {
  planId = `matrix-${++planNo}`;
  await store.importPlan(plan(planId, [task("A")]));
});

function app() {
  return createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN }),
    eventFeed: feed,
    settings: {
      leaseMs: 60_000,
      claimWaitMs: 0,
      claimRecheckMs: 1000,
      events: { ...DEFAULT_EVENT_STREAM, keepAliveMs: 10_000 },
    },
  });
}

type Answer = { status: number; code: unknown };

async function call(
  a: ReturnType<typeof app>,
  method: string,
  path: string,
  token?: string,
): Promise<Answer> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await a.request(path, { method, headers });
  // A stream's body never ends by itself; an envelope says why a request was refused.
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, code: null };
  }
  const text = await response.text();
  const body = text.startsWith("{") ? (JSON.parse(text) as { error_code?: unknown }) : {};
  return { status: response.status, code: body.error_code ?? null };
}

/** A live read-only token and a registered worker's bearer. */
async function credentials(a: ReturnType<typeof app>) {
  const minted = await storedReadToken(store, "matrix");
  const registered = await a.request("/workers/register", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${BOOTSTRAP}` },
    body: '{"hostname":"box"}',
  });
  const worker = ((await registered.json()) as { token: string }).token;
  return { minted, worker };
}

/** `call` as a browser makes it: the session cookie and no `Authorization` header. */
async function callWithCookie(a: ReturnType<typeof app>, method: string, path: string, cookie: string) {
  const response = await a.request(path, { method, headers: { cookie } });
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, code: null };
  }
  const text = await response.text();
  const body = text.startsWith("{") ? (JSON.parse(text) as { error_code?: unknown }) : {};
  return { status: response.status, code: body.error_code ?? null };
}

describe("the auth matrix of streams, metrics and operator actions", () => {
  it("answers each route for no token, a read-only token, a worker's bearer and the admin token", async () => {
    const a = app();
    const { minted, worker } = await credentials(a);
    const READ_401 = { status: 401, code: "missing_or_invalid_read_token" };
    const ADMIN_401 = { status: 401, code: "missing_or_invalid_admin_token" };
    const READ_ONLY_403 = { status: 403, code: "read_only_token" };
    const OK = (code: unknown = null) => ({ status: 200, code });
    // Task A is PENDING: the admin's reset and release pass auth and meet the wrong status (409).
    const CONFLICT = { status: 409, code: "version_conflict" };
    const rows: [string, string, Answer, Answer, Answer, Answer][] = [
      // method, path: no token, read-only token, worker bearer, admin token
      ["GET", `/api/v1/plans/${planId}/events/stream`, READ_401, OK(), READ_401, OK()],
      ["GET", "/api/v1/events/stream", READ_401, OK(), READ_401, OK()],
      ["GET", "/metrics", READ_401, OK(), { status: 403, code: "worker_token" }, OK()],
      ["GET", "/api/v1/workers/pause", READ_401, OK(), READ_401, OK()],
      ["POST", `/api/v1/plans/${planId}/tasks/A/reset`, ADMIN_401, READ_ONLY_403, ADMIN_401, CONFLICT],
      ["POST", `/api/v1/plans/${planId}/tasks/A/release`, ADMIN_401, READ_ONLY_403, ADMIN_401, CONFLICT],
      ["POST", "/api/v1/workers/pause", ADMIN_401, READ_ONLY_403, ADMIN_401, OK()],
      ["POST", "/api/v1/workers/resume", ADMIN_401, READ_ONLY_403, ADMIN_401, OK()],
    ];
    for (const [method, path, none, readOnly, byWorker, admin] of rows) {
      expect(await call(a, method, path), `${method} ${path} without a token`).toEqual(none);
      expect(await call(a, method, path, minted.token), `${method} ${path} read-only`).toEqual(readOnly);
      expect(await call(a, method, path, worker), `${method} ${path} with a worker bearer`).toEqual(byWorker);
      expect(await call(a, method, path, ADMIN), `${method} ${path} with the admin token`).toEqual(admin);
    }
    // Refused callers changed nothing; the admin's pause was lifted by its resume.
    expect(await store.readWorkersPause()).toBeUndefined();
    expect((await store.getTask(planId, "A"))?.status).toBe("PENDING");
  });

  it("refuses every action when the control plane has no admin token, telling the operator to set one", async () => {
    const a = createApp({
      withStore: (use) => use(store),
      auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    const response = await a.request("/api/v1/workers/pause", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: "missing_or_invalid_admin_token" });
    expect(await store.readWorkersPause()).toBeUndefined();
  });

  it("answers the session routes for each credential; a session cookie reads and never acts", async () => {
    const a = app();
    const { minted, worker } = await credentials(a);
    const READ_401 = { status: 401, code: "missing_or_invalid_read_token" };
    const OK = { status: 200, code: null };
    const GONE = { status: 204, code: null };
    const NO_CODES = { status: 404, code: "not_found" };
    const rows: [string, string, Answer, Answer, Answer, Answer][] = [
      // method, path: no token, read-only token, worker bearer, admin token
      ["POST", "/api/v1/session", READ_401, OK, READ_401, OK],
      ["DELETE", "/api/v1/session", GONE, GONE, GONE, GONE],
      ["POST", "/api/v1/session/redeem", NO_CODES, NO_CODES, NO_CODES, NO_CODES],
    ];
    for (const [method, path, none, readOnly, byWorker, admin] of rows) {
      expect(await call(a, method, path), `${method} ${path} without a token`).toEqual(none);
      expect(await call(a, method, path, minted.token), `${method} ${path} read-only`).toEqual(readOnly);
      expect(await call(a, method, path, worker), `${method} ${path} with a worker bearer`).toEqual(byWorker);
      expect(await call(a, method, path, ADMIN), `${method} ${path} with the admin token`).toEqual(admin);
    }
    const ADMIN_401 = { status: 401, code: "missing_or_invalid_admin_token" };
    const cookies: [string, string][] = [];
    for (const token of [minted.token, ADMIN]) {
      const opened = await a.request("/api/v1/session", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      cookies.push([
        token === ADMIN ? "admin" : "read",
        opened.headers.get("set-cookie")?.split(";")[0] ?? "",
      ]);
    }
    const cookieRows: [string, string, Answer][] = [
      ["GET", `/api/v1/plans/${planId}/events/stream`, OK],
      ["GET", "/api/v1/events/stream", OK],
      ["GET", `/api/v1/plans/${planId}/tasks/A`, OK],
      ["GET", "/api/v1/workers/pause", OK],
      // /metrics and the OpenAPI document are for scrapers and tools, which send a bearer.
      ["GET", "/metrics", READ_401],
      ["POST", `/api/v1/plans/${planId}/tasks/A/reset`, ADMIN_401],
      ["POST", `/api/v1/plans/${planId}/tasks/A/release`, ADMIN_401],
      ["POST", "/api/v1/workers/pause", ADMIN_401],
      ["POST", "/api/v1/workers/resume", ADMIN_401],
      ["POST", "/api/v1/session", READ_401],
    ];
    for (const [role, cookie] of cookies) {
      for (const [method, path, expected] of cookieRows) {
        expect(await callWithCookie(a, method, path, cookie), `${method} ${path}, ${role} cookie`).toEqual(
          expected,
        );
      }
    }
    expect(await store.readWorkersPause()).toBeUndefined();
  });
});
