import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storedReadToken } from "../../auth/testing/read-token.js";
import { createTokenAuth, type TokenAuthOptions } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { DEFAULT_EVENT_STREAM } from "../../stream/index.js";
import { sseReader } from "../../stream/testing/sse-reader.js";
import { routeHarness } from "../testing/route-harness.js";
import { openSession } from "../testing/session-cookie.js";

// An open event stream outlives neither its credential nor its plan: a revoked read token, an expired
// session or a deleted plan ends it (checked again at each keep-alive), as its next request is refused.

const BOOTSTRAP = "bootstrap-secret-for-stream-credential-tests";
const ADMIN = "admin-secret-for-stream-credential-tests-0";

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
  harness.app({
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN, ...options }),
    settings: {
      leaseMs: 60_000,
      claimWaitMs: 0,
      claimRecheckMs: 1000,
      events: { ...DEFAULT_EVENT_STREAM, keepAliveMs: 50, pollMs: 50 },
    },
  });

function readToken(): Promise<{ id: string; token: string }> {
  return storedReadToken(store, "browser");
}

/** Reads `path`'s stream until it ends; rejects when it is still open after `timeoutMs`. */
async function untilEnd(response: Response, timeoutMs = 5000): Promise<"ended"> {
  const frames = sseReader(response.body as ReadableStream<Uint8Array>);
  const deadline = Date.now() + timeoutMs;
  try {
    while ((await frames.next(Math.max(1, deadline - Date.now()))) !== undefined);
    return "ended";
  } finally {
    await frames.cancel();
  }
}

describe("an open event stream whose credential or plan lapses", () => {
  it("ends when the session's read token is revoked", async () => {
    const a = app();
    const { id, token } = await readToken();
    const { cookie } = await openSession(a, token);
    const response = await a.request("/api/v1/events/stream", { headers: { cookie: cookie ?? "" } });
    expect(response.status).toBe(200);
    await store.revokeReadToken(id);
    await expect(untilEnd(response)).resolves.toBe("ended");
  });

  it("ends when the read token it was opened with as a bearer is revoked", async () => {
    const a = app();
    const { id, token } = await readToken();
    const response = await a.request("/api/v1/plans/p/events/stream", {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    await store.revokeReadToken(id);
    await expect(untilEnd(response)).resolves.toBe("ended");
  });

  it("ends when the session's time is up", async () => {
    const a = app({ sessionTtlMs: 1000 });
    const { cookie } = await openSession(a, ADMIN);
    const response = await a.request("/api/v1/events/stream", { headers: { cookie: cookie ?? "" } });
    expect(response.status).toBe(200);
    await expect(untilEnd(response)).resolves.toBe("ended");
  });

  it("ends when its plan is deleted", async () => {
    const a = app();
    const response = await a.request("/api/v1/plans/p/events/stream", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(response.status).toBe(200);
    await store.resetPlan("p", "hard");
    await expect(untilEnd(response)).resolves.toBe("ended");
  });

  it("stays open while the credential is good", async () => {
    const a = app();
    const { token } = await readToken();
    const response = await a.request("/api/v1/events/stream", {
      headers: { authorization: `Bearer ${token}` },
    });
    await expect(untilEnd(response, 600)).rejects.toThrow(/no SSE frame|within/);
  });
});
