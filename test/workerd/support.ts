import { listDurableObjectIds, runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { parsePlanObject } from "@whilly/core";
import { openNeonStore } from "../../worker-api/src/store/open/neon.js";
import type { Store } from "../../worker-api/src/store/store.js";

/** The bootstrap token the workerd project gives the Worker (vitest.config.ts). */
export const BOOTSTRAP_TOKEN = "workerd-test-bootstrap-token";

/**
 * Sends a request to the Worker under test (its default export's `fetch`, inside workerd).
 * @returns the status and the parsed JSON body (undefined when empty).
 */
export async function call(method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await exports.default.fetch(`http://whilly.test${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Runs `use` on a store of the test's own, over the same Neon driver, proxy and database as the
 * Worker; opened and closed inside the call, as workerd ties connections to the request that made them.
 */
export async function withStore<T>(use: (store: Store) => Promise<T>): Promise<T> {
  const store = openNeonStore({ url: env.WHILLY_DATABASE_URL, wsProxy: env.WHILLY_NEON_WS_PROXY });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/**
 * Imports a plan under a fresh id (every test file shares one database): task `A`, and `B` that
 * depends on `A`.
 * @returns the plan id.
 */
export async function importChainPlan(): Promise<string> {
  const planId = `plan-${crypto.randomUUID().slice(0, 8)}`;
  const plan = parsePlanObject(
    {
      project: planId,
      tasks: [
        { id: "A", status: "pending", priority: "high", description: "first" },
        { id: "B", status: "pending", priority: "high", description: "second", dependencies: ["A"] },
      ],
    },
    "workerd-test",
  );
  await withStore((store) => store.importPlan(plan));
  return planId;
}

/** Registers a worker through the Worker's register route. @returns its id and bearer. */
export async function register(hostname = "workerd-host"): Promise<{ workerId: string; token: string }> {
  const reply = await call("POST", "/workers/register", { hostname }, BOOTSTRAP_TOKEN);
  if (reply.status !== 201)
    throw new Error(`register answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return { workerId: reply.body.worker_id, token: reply.body.token };
}

/**
 * Runs every event buffer's pending flush now, so no alarm fires after the run has stopped the
 * database proxy.
 */
export async function flushEventBuffers(): Promise<void> {
  for (const id of await listDurableObjectIds(env.EVENT_BUFFER)) {
    await runDurableObjectAlarm(env.EVENT_BUFFER.get(id));
  }
}
