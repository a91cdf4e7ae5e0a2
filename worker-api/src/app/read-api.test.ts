import {
  healthResponseSchema,
  parsePlanObject,
  planDetailResponseSchema,
  planEventsResponseSchema,
  planListResponseSchema,
  planTasksResponseSchema,
} from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import type { Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { openUnreachableStore } from "../store/testing/unreachable.js";
import { createApp } from "./app.js";
import type { AppDeps } from "./deps.js";
import { OPERATIONS } from "./openapi/operations.js";

/** A plan id with a space, non-ASCII text and a slash: every path must percent-encode it. */
const PLAN = "Ünïcode plan/1";
const PLAN_PATH = `/api/v1/plans/${encodeURIComponent(PLAN)}`;

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  const plan = parsePlanObject(
    {
      plan_id: PLAN,
      project: "Demo",
      tasks: [
        { id: "A", status: "pending", priority: "high", description: "first" },
        { id: "B", status: "pending", priority: "low", description: "second", dependencies: ["A"] },
        { id: "C", status: "pending", priority: "low", description: "third" },
      ],
    },
    "test",
  );
  await store.importPlan(plan);
  await store.createPlan({ id: "budgeted", name: "Budgeted", budgetMicroUsd: 2_500_000 });
});

function app(overrides: Partial<AppDeps> = {}) {
  return createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    ...overrides,
  });
}

/** A JSON reply; the body is checked against the wire schemas where its shape matters. */
async function get(path: string, a = app()): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await a.request(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Runs task A to DONE with a cost of $0.123456. */
async function finishA(): Promise<void> {
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  const claimed = await store.claim({ planId: PLAN, workerId: "w1", leaseMs: 60_000 });
  await store.complete({
    planId: PLAN,
    taskId: "A",
    workerId: "w1",
    version: claimed?.version ?? -1,
    costMicroUsd: 123_456,
  });
}

describe("GET /health", () => {
  it("answers 200 ok when the database answers", async () => {
    const reply = await get("/health");
    expect(reply).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("answers 503 when the database does not, naming no host, user or password", async () => {
    const url = "postgres://whilly_user:hunter2secret@127.0.0.1:1/whilly_db";
    const unreachable = openUnreachableStore(url);
    const logged: unknown[] = [];
    const log: Logger = (...line) => logged.push(line);
    try {
      const reply = await get("/health", app({ withStore: (use) => use(unreachable), log }));
      expect(reply.status).toBe(503);
      expect(healthResponseSchema.parse(reply.body)).toEqual({
        status: "unavailable",
        detail: "database check failed (store_unavailable); see the control plane's log",
      });
      for (const secret of ["hunter2secret", "whilly_user", "127.0.0.1", "whilly_db"]) {
        expect(JSON.stringify(reply.body)).not.toContain(secret);
      }
      expect(logged).toHaveLength(1);
      expect(JSON.stringify(logged)).not.toContain("hunter2secret");
    } finally {
      await unreachable.close();
    }
  });

  it("answers 503 when the store scope cannot even open", async () => {
    const reply = await get(
      "/health",
      app({
        withStore: async () => {
          throw new Error("connect to postgres://u:pw@db.internal failed");
        },
      }),
    );
    expect(reply.status).toBe(503);
    expect(reply.body.detail).toBe("database check failed (error); see the control plane's log");
  });
});

describe("the read API", () => {
  it("lists plans with counts, budget and spend as decimal strings", async () => {
    await finishA();
    const reply = await get("/api/v1/plans");
    expect(reply.status).toBe(200);
    const { plans } = planListResponseSchema.parse(reply.body);
    expect(plans.map((p) => [p.id, p.task_count, p.budget_usd, p.spent_usd])).toEqual([
      ["budgeted", 0, "2.500000", "0.000000"],
      [PLAN, 3, null, "0.123456"],
    ]);
    expect(plans[1]?.counts).toEqual({
      PENDING: 2,
      CLAIMED: 0,
      IN_PROGRESS: 0,
      DONE: 1,
      FAILED: 0,
      SKIPPED: 0,
    });
  });

  it("shows one plan by its percent-encoded id, with whilly 4.x's fields", async () => {
    await finishA();
    const reply = await get(PLAN_PATH);
    expect(reply.status).toBe(200);
    const plan = planDetailResponseSchema.parse(reply.body);
    expect(plan).toMatchObject({
      id: PLAN,
      name: "Demo",
      budget_usd: null,
      spent_usd: "0.123456",
      task_count: 3,
      github_issue_ref: null,
      prd_file: null,
      agent_instructions: { before: [], after: [] },
      verify: [],
      setup: null,
      max_attempts: null,
      agent: null,
      model: null,
      fallback_agents: [],
    });
    expect(plan.counts.DONE).toBe(1);
    expect(Date.parse(plan.created_at)).not.toBeNaN();
  });

  it("shows a plan's verify commands, setup command and attempt limit", async () => {
    await store.importPlan(
      parsePlanObject(
        {
          plan_id: "checked",
          project: "Checked",
          verify: ["npm run lint", "npm test"],
          setup: "npm ci",
          max_attempts: 5,
          tasks: [{ id: "A", status: "pending", priority: "high", description: "first" }],
        },
        "test",
      ),
    );
    const reply = await get("/api/v1/plans/checked");
    expect(planDetailResponseSchema.parse(reply.body)).toMatchObject({
      verify: ["npm run lint", "npm test"],
      setup: "npm ci",
      max_attempts: 5,
    });
    // `whilly run --max-attempts` overrides the plan's limit, and the detail shows the stored one.
    await store.setPlanMaxAttempts("checked", 2);
    expect((await get("/api/v1/plans/checked")).body.max_attempts).toBe(2);
  });

  it("lists a plan's tasks", async () => {
    await finishA();
    const reply = await get(`${PLAN_PATH}/tasks`);
    const body = planTasksResponseSchema.parse(reply.body);
    expect(body.plan_id).toBe(PLAN);
    expect(body.tasks.map((t) => [t.id, t.status, t.dependencies])).toEqual([
      ["A", "DONE", []],
      ["B", "PENDING", ["A"]],
      ["C", "PENDING", []],
    ]);
    // A DONE task's spend stays; its claim and progress are gone.
    expect(body.tasks[0]).toMatchObject({ claimed_at: null, spent_usd: "0.123456", progress: null });
    expect(body.tasks[2]).toMatchObject({ claimed_at: null, spent_usd: "0.000000", progress: null });
  });

  it("shows a running task's claim time and its worker's last progress", async () => {
    await finishA();
    const claimed = await store.claim({ planId: PLAN, workerId: "w1", leaseMs: 60_000, start: true });
    const progress = { phase: "agent", last_tool: "Edit", turns: 4 };
    await store.heartbeat("w1", 60_000, [{ planId: PLAN, taskId: claimed?.id ?? "", progress }]);
    const { tasks } = planTasksResponseSchema.parse((await get(`${PLAN_PATH}/tasks`)).body);
    const running = tasks.find((t) => t.id === claimed?.id);
    expect(running).toMatchObject({ status: "IN_PROGRESS", spent_usd: "0.000000", progress });
    expect(running?.claimed_at).toBe(claimed?.claimedAt?.toISOString());
  });

  it("pages a plan's events after an id, and says where the next page starts", async () => {
    await finishA();
    const all = planEventsResponseSchema.parse((await get(`${PLAN_PATH}/events`)).body);
    expect(all.events.map((e) => [e.event_type, e.task_id])).toEqual([
      ["task.created", "A"],
      ["task.created", "B"],
      ["task.created", "C"],
      ["CLAIM", "A"],
      ["COMPLETE", "A"],
    ]);
    const ids = all.events.map((e) => e.id);
    expect(all.next_after).toBe(ids.at(-1));

    const page = planEventsResponseSchema.parse(
      (await get(`${PLAN_PATH}/events?after=${ids[1]}&limit=2`)).body,
    );
    expect(page.events.map((e) => e.id)).toEqual(ids.slice(2, 4));
    expect(page.next_after).toBe(ids[3]);
    const end = planEventsResponseSchema.parse((await get(`${PLAN_PATH}/events?after=${ids.at(-1)}`)).body);
    expect(end).toEqual({ plan_id: PLAN, events: [], next_after: ids.at(-1) });
    const complete = all.events.at(-1);
    expect(complete?.payload).toMatchObject({ cost_usd: "0.123456" });
  });

  it("refuses a bad after or limit with 422", async () => {
    for (const query of ["after=-1", "after=x", "limit=0", "limit=10001", "limit=1.5"]) {
      const reply = await get(`${PLAN_PATH}/events?${query}`);
      expect([query, reply.status, reply.body.error_code]).toEqual([query, 422, "invalid_input"]);
    }
  });

  it("answers 404 plan_not_found for a missing plan on every read route", async () => {
    for (const suffix of ["", "/tasks", "/events"]) {
      const reply = await get(`/api/v1/plans/nope${suffix}`);
      expect(reply).toEqual({
        status: 404,
        body: { error_code: "plan_not_found", detail: "plan 'nope' not found", task_id: null },
      });
    }
  });
});

describe("GET /openapi.json", () => {
  type Doc = {
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    components: { schemas: Record<string, unknown> };
  };

  it("describes every route the app serves, and nothing it does not", async () => {
    const a = app();
    const reply = await get("/openapi.json", a);
    expect(reply.status).toBe(200);
    const doc = reply.body as Doc;
    expect(doc.openapi).toBe("3.1.0");
    const served = a.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(new Set(documented)).toEqual(new Set(served));
    expect(documented).toHaveLength(OPERATIONS.length);
  });

  it("resolves every $ref inside the document", async () => {
    const doc = (await get("/openapi.json")).body as Doc;
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(refs.length).toBeGreaterThan(10);
    for (const target of new Set(refs)) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(target)?.[1];
      expect([target, name !== undefined && name in doc.components.schemas]).toEqual([target, true]);
    }
  });

  it("documents the error envelope and the 401 of every authenticated route", async () => {
    const doc = (await get("/openapi.json")).body as Doc;
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({
      required: expect.arrayContaining(["error_code", "detail", "task_id"]),
    });
    expect(Object.keys(doc.paths["/tasks/{taskId}/complete"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "401", "403", "404", "409", "422"]),
    );
    expect(Object.keys(doc.paths["/workers/register"]?.post?.responses ?? {})).toContain("201");
  });
});
