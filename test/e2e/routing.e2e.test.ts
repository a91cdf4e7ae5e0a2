import { join } from "node:path";
import { EVENT_TYPES } from "@whilly/core";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  type ControlPlane,
  cleanUp,
  FIXTURES,
  type Proc,
  scratchDir,
  startControlPlane,
  startWorkerProcess,
  waitUntil,
  whilly,
  writePlan,
} from "./distributed-support.js";

// Routing by capabilities end to end (docs/agents.md#routing): `whilly server` on Postgres and two
// `whilly-worker` processes that differ in agents and tags. "gpu" runs Claude Code (a fake that answers
// at once) and has the tag gpu; "cmd" runs the generic command agent (`true`) and has the tag macos.
// Every task lands on a worker that can run it; a task requiring a tag nobody has is reported waiting
// and never claimed; a task whose agent hits a usage limit moves to the plan's fallback agent.
const BY_TASK_AGENT = join(FIXTURES, "fake-agents", "by-task.mjs");
const PLAN_ID = "routing";

let db: TestDatabase;
let plane: ControlPlane;
let store: Store;

const task = (id: string, priority: string, more: object = {}) => ({
  id,
  status: "pending",
  priority,
  description: `Do ${id}.`,
  ...more,
});

describe.skipIf(!postgresAvailable())("routing: workers with different agents and tags", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    plane = await startControlPlane(db.url, 30, { WHILLY_PUBLIC_READ: "1" });
    const file = {
      plan_id: PLAN_ID,
      project: PLAN_ID,
      // A task whose agent hits a usage limit moves to the command agent.
      fallback_agents: ["cmd"],
      tasks: [
        // Most urgent, and claimable by nobody: every claim passes over it.
        task("T-TPU", "critical", { required_tags: ["tpu"] }),
        task("T-GPU", "high", { required_tags: ["gpu"] }),
        task("T-CMD", "high", { agent: "cmd" }),
        task("T-ANY", "medium"),
        // Only the gpu worker has Claude Code, whose fake answers this one with a rate limit.
        task("T-LIMIT", "low", { agent: "claude" }),
      ],
    };
    const plan = writePlan(file);
    await whilly(["plan", "import", plan], plane.env);
    store = await openPostgresStore(db.url, { max: 2 });
  }, 60_000);

  afterAll(async () => {
    await cleanUp();
    await store?.close();
    await db?.drop();
  });

  it("hands each task to a worker that can run it and reports the one nobody can", async () => {
    const [gpuWho, cmdWho] = await Promise.all([plane.register(), plane.register()]);
    const start = (who: typeof gpuWho, argv: string[], env: Record<string, string>): Proc =>
      startWorkerProcess({
        who,
        controlUrl: plane.url,
        planId: PLAN_ID,
        // Not a git repository: tasks run in place, which keeps the test to the routing.
        workdir: scratchDir(`whilly-${who.workerId}-`),
        fakeUrl: "http://127.0.0.1:9",
        argv,
        env: { FAKE_AGENT_SCRIPT: "{}", ...env },
      });
    const limited = {
      "T-LIMIT": { outcome: "fail", message: "API Error: Request rejected (429) · rate limited" },
    };
    const gpu = start(gpuWho, ["--tags", "gpu"], {
      CLAUDE_BIN: BY_TASK_AGENT,
      FAKE_AGENT_SCRIPT: JSON.stringify(limited),
    });
    // Claude Code does not start there: that worker advertises the command agent alone.
    const cmd = start(cmdWho, ["--agent", "cmd", "--agent-cmd", "true {task_id}", "--tags", "macos"], {
      CLAUDE_BIN: "/nonexistent/claude",
    });
    const done = await waitUntil(
      "T-GPU, T-CMD, T-ANY and T-LIMIT DONE",
      async () => {
        const tasks = await store.listTasks(PLAN_ID);
        const failed = tasks.filter((t) => t.status === "FAILED");
        if (failed.length > 0)
          throw new Error(`FAILED: ${failed.map((t) => t.id)}\n${gpu.err()}\n${cmd.err()}`);
        const doneIds = tasks.filter((t) => t.status === "DONE").map((t) => t.id);
        return doneIds.length === 4 ? tasks : undefined;
      },
      30_000,
    );
    expect(done.find((t) => t.id === "T-TPU")).toMatchObject({ status: "PENDING", attempts: 0 });

    const events = await store.listEvents(PLAN_ID);
    const claims = events.filter((e) => e.eventType === EVENT_TYPES.claim);
    const claimedBy = Object.fromEntries(
      claims.filter((e) => e.taskId !== "T-LIMIT").map((e) => [e.taskId, e.payload.worker_id]),
    );
    expect(claimedBy["T-GPU"]).toBe(gpuWho.workerId);
    expect(claimedBy["T-CMD"]).toBe(cmdWho.workerId);
    expect([gpuWho.workerId, cmdWho.workerId]).toContain(claimedBy["T-ANY"]);
    expect(claims.map((e) => e.taskId)).not.toContain("T-TPU");
    const started = Object.fromEntries(
      events
        .filter((e) => e.eventType === EVENT_TYPES.start && e.taskId !== "T-LIMIT")
        .map((e) => [e.taskId, e.detail?.agent]),
    );
    expect(started["T-GPU"]).toBe("claude");
    expect(started["T-CMD"]).toBe("cmd");
    expect(started["T-ANY"]).toBe(claimedBy["T-ANY"] === gpuWho.workerId ? "claude" : "cmd");

    // T-LIMIT: claimed by the gpu worker on Claude Code, handed back on the limit, moved to its plan's
    // fallback agent, then claimed and done by the cmd worker.
    const limitClaims = claims.filter((e) => e.taskId === "T-LIMIT").map((e) => e.payload.worker_id);
    expect(limitClaims).toEqual([gpuWho.workerId, cmdWho.workerId]);
    const release = events.find((e) => e.eventType === EVENT_TYPES.release && e.taskId === "T-LIMIT");
    expect(release?.payload).toMatchObject({ reason: "rate_limited" });
    expect(release?.detail).toEqual({ agent: "claude", fallback_agent: "cmd" });
    const limitStarts = events.filter((e) => e.eventType === EVENT_TYPES.start && e.taskId === "T-LIMIT");
    expect(limitStarts.map((e) => e.detail?.agent)).toEqual(["claude", "cmd"]);
    expect(done.find((t) => t.id === "T-LIMIT")?.fallbackAgent).toBe("cmd");

    // Each worker row keeps what it advertised.
    const workers = Object.fromEntries((await store.listWorkers()).map((w) => [w.workerId, w.capabilities]));
    expect(workers[gpuWho.workerId]).toMatchObject({ tags: ["gpu"] });
    expect(workers[gpuWho.workerId]?.agents).toContain("claude");
    expect(workers[cmdWho.workerId]).toMatchObject({ agents: ["cmd"], tags: ["macos"], agent: "cmd" });

    // The read API and plan show say what T-TPU waits for.
    const reply = await fetch(`${plane.url}/api/v1/plans/${PLAN_ID}/tasks`);
    const body = (await reply.json()) as { tasks: { id: string; waiting_for: unknown }[] };
    const waiting = Object.fromEntries(body.tasks.map((t) => [t.id, t.waiting_for]));
    expect(waiting).toEqual({
      "T-TPU": { tags: ["tpu"] },
      "T-GPU": null,
      "T-CMD": null,
      "T-ANY": null,
      "T-LIMIT": null,
    });
    const [shown, shownJson] = await Promise.all([
      whilly(["plan", "show", PLAN_ID, "--no-color"], plane.env),
      whilly(["plan", "show", PLAN_ID, "--json"], plane.env),
    ]);
    expect(shown.out).toContain("⏳ waits for a worker with tag tpu");
    const json = JSON.parse(shownJson.out);
    const tpu = json.tasks.find((t: { id: string }) => t.id === "T-TPU");
    expect(tpu).toMatchObject({ required_tags: ["tpu"], waiting_for: { tags: ["tpu"] } });
  }, 60_000);
});
