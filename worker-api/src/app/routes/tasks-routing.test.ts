import { parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  for (const workerId of ["w1", "w2"]) await store.upsertWorker({ workerId, hostname: "h" });
  const plan = parsePlanObject(
    {
      project: "p",
      agent: "claude",
      model: "claude-sonnet-4-5",
      fallback_agents: ["codex"],
      tasks: [
        { id: "A", status: "pending", priority: "high", description: "a", required_tags: ["gpu"] },
        { id: "B", status: "pending", priority: "low", description: "b", agent: "codex", model: "gpt-5" },
      ],
    },
    "test",
  );
  await store.importPlan(plan);
});

const { app, post } = routeHarness(() => store);

async function get(path: string) {
  const response = await app().request(path);
  const body: ReturnType<typeof JSON.parse> = await response.json();
  return { status: response.status, body };
}

describe("claim routing over HTTP", () => {
  it("hands each worker a task it can run, with the attempt's agent and model and the plan's choice", async () => {
    const codex = await post("/tasks/claim", {
      worker_id: "w1",
      plan_id: "p",
      start: true,
      capabilities: { agents: ["codex"], tags: [] },
    });
    expect(codex.status).toBe(200);
    expect(codex.body.task).toMatchObject({ id: "B", agent: "codex", model: "gpt-5", required_tags: [] });
    expect(codex.body.plan).toMatchObject({
      agent: "claude",
      model: "claude-sonnet-4-5",
      fallback_agents: ["codex"],
    });
    // An older worker (no capabilities) cannot take A: it needs the gpu tag.
    expect((await post("/tasks/claim", { worker_id: "w2", plan_id: "p" })).status).toBe(204);
    const gpu = await post("/tasks/claim", {
      worker_id: "w2",
      plan_id: "p",
      capabilities: { agents: ["claude"], tags: ["gpu"] },
      choice: { model: "ignored-for-a-plan-model" },
    });
    expect(gpu.body.task).toMatchObject({
      id: "A",
      agent: "claude",
      model: "claude-sonnet-4-5",
      required_tags: ["gpu"],
    });
  });

  it("refuses capabilities that are not names (422)", async () => {
    const reply = await post("/tasks/claim", {
      worker_id: "w1",
      plan_id: "p",
      capabilities: { agents: ["Codex"], tags: [] },
    });
    expect(reply.status).toBe(422);
  });

  it("a rate-limited release naming the agent moves the task to the plan's fallback", async () => {
    const claimed = await post("/tasks/claim", {
      worker_id: "w1",
      plan_id: "p",
      start: true,
      capabilities: { agents: ["claude"], tags: ["gpu"] },
    });
    const released = await post("/tasks/A/release", {
      worker_id: "w1",
      plan_id: "p",
      version: claimed.body.task.version,
      reason: "rate_limited",
      agent: "claude",
    });
    expect(released.status).toBe(200);
    const again = await post("/tasks/claim", {
      worker_id: "w2",
      plan_id: "p",
      capabilities: { agents: ["codex"], tags: ["gpu"] },
    });
    // A (high) on its fallback agent, with that agent's default model: the plan's model is Claude's.
    expect(again.body.task).toMatchObject({ id: "A", agent: "codex", model: null });
  });

  it("the read API says what a ready task no online worker can run waits for", async () => {
    await post("/tasks/claim", {
      worker_id: "w1",
      plan_id: "p",
      capabilities: { agents: ["claude"], tags: [] },
    });
    const tasks = await get("/api/v1/plans/p/tasks");
    expect(tasks.status).toBe(200);
    const byId = Object.fromEntries(tasks.body.tasks.map((t: { id: string }) => [t.id, t]));
    expect(byId.A.waiting_for).toEqual({ tags: ["gpu"] });
    expect(byId.B.waiting_for).toEqual({ agent: "codex", tags: [] });
    expect(byId.B).toMatchObject({ agent: "codex", model: "gpt-5", required_tags: [] });
  });
});
