import { inProcessAuth } from "../../auth/in-process.js";
import type { Store } from "../../store/store.js";
import { createApp } from "../app.js";
import type { AppDeps } from "../deps.js";

/**
 * A reply as route tests read it: the status and the parsed JSON body (`undefined` when empty), typed
 * as `JSON.parse` types it, since each test reads the fields its route promises.
 */
export type RouteReply = { status: number; body: ReturnType<typeof JSON.parse> };

/**
 * The app over one store, as route tests drive it: in-process auth (the caller is whoever `worker_id`
 * names), a 60 s lease, claims that answer at once (no long poll) and a 1 s recheck. `store` is read at
 * each request, so a test file can swap in a fresh store before each test.
 */
export function routeHarness(store: () => Store) {
  const app = (overrides: Partial<AppDeps> = {}) =>
    createApp({
      withStore: (use) => use(store()),
      auth: inProcessAuth,
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
      ...overrides,
    });
  /** POSTs `body` (JSON-encoded unless already a string) to `path`. */
  const post = async (path: string, body: unknown, target = app()): Promise<RouteReply> => {
    const response = await target.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { app, post };
}
