import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app/app.js";
import type { AppDeps } from "../app/deps.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { deriveSigningKey } from "./signing-key.js";
import { createTokenAuth } from "./token-auth.js";
import { mintWorkerToken } from "./worker-token.js";

// A caller without valid credentials must learn nothing about what a route's body should be: every
// worker route answers it 401, whatever (or however broken) the body it sends.

const BOOTSTRAP = "bootstrap-secret-for-tests";
const LEGACY = "legacy-shared-token-for-tests";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  await store.importPlan(
    parsePlanObject(
      {
        project: "p",
        tasks: [{ id: "A", status: "pending", priority: "high", description: "a" }],
      },
      "test",
    ),
  );
});

function app(legacyToken?: string) {
  const deps: AppDeps = {
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, legacyToken }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  };
  return createApp(deps);
}

const WORKER_ROUTES = [
  "/tasks/claim",
  "/tasks/A/start",
  "/tasks/A/complete",
  "/tasks/A/fail",
  "/tasks/A/release",
  "/workers/w-1/heartbeat",
];

/** Bodies no route accepts: empty, wrong types, unknown fields, not JSON at all. */
const BAD_BODIES = ["{}", '{"worker_id": 7, "surprise": true}', "not json"];

async function post(a: ReturnType<typeof app>, path: string, body: string, authorization?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await a.request(path, { method: "POST", headers, body });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    challenge: response.headers.get("www-authenticate"),
  };
}

describe("worker routes authenticate before they read the body", async () => {
  const forged = await mintWorkerToken(
    await deriveSigningKey({ bootstrapToken: "another-control-plane" }),
    "w-1",
  );
  const credentials: [string, string | undefined, string][] = [
    ["no header", undefined, "missing bearer token"],
    ["Basic auth", "Basic Ym9vdDpzdHJhcA==", "invalid authorization scheme"],
    ["an empty bearer", "Bearer ", "empty bearer token"],
    ["the bootstrap token", `Bearer ${BOOTSTRAP}`, "invalid token"],
    ["a garbage bearer", "Bearer garbage", "invalid token"],
    ["a JWT signed with another key", `Bearer ${forged}`, "invalid token"],
    ["the shared token where none is configured", `Bearer ${LEGACY}`, "invalid token"],
  ];

  for (const path of WORKER_ROUTES) {
    for (const [name, authorization, detail] of credentials) {
      it(`${path} with ${name}: 401 ${detail} for every bad body`, async () => {
        const a = app();
        for (const body of BAD_BODIES) {
          const reply = await post(a, path, body, authorization);
          expect(reply).toEqual({
            status: 401,
            body: { error_code: "missing_or_invalid_bearer", detail, task_id: null },
            challenge: 'Bearer realm="whilly"',
          });
        }
      });
    }
  }

  it("register with anything but the bootstrap token: 401 missing_or_invalid_bootstrap for every bad body", async () => {
    const a = app(LEGACY);
    for (const authorization of [
      undefined,
      "Basic Ym9vdDpzdHJhcA==",
      "Bearer ",
      `Bearer ${LEGACY}`,
      "Bearer x",
    ]) {
      for (const body of BAD_BODIES) {
        const reply = await post(a, "/workers/register", body, authorization);
        expect(reply.status).toBe(401);
        expect(reply.body.error_code).toBe("missing_or_invalid_bootstrap");
        expect(reply.challenge).toBe('Bearer realm="whilly"');
      }
    }
  });

  it("a credential that may be valid gets the body's 422", async () => {
    const a = app(LEGACY);
    const registered = await post(a, "/workers/register", '{"hostname":"box"}', `Bearer ${BOOTSTRAP}`);
    const { token } = registered.body as { token: string };
    for (const authorization of [`Bearer ${token}`, `Bearer ${LEGACY}`]) {
      for (const path of WORKER_ROUTES) {
        const reply = await post(a, path, "{}", authorization);
        expect(reply.status, `${path} ${authorization}`).toBe(422);
        expect(reply.body.error_code).toBe("invalid_input");
      }
    }
  });
});
