import { claimResponseSchema, parsePlanObject, planTasksResponseSchema } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

let fixture: StoreFixture;
let store: Store;

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const BRANCH = "whilly-tasks/p/a";

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  const plan = parsePlanObject(
    {
      project: "p",
      tasks: [
        { id: "A", status: "pending", priority: "critical", description: "a" },
        { id: "B", status: "pending", priority: "low", description: "b" },
        { id: "C", status: "pending", priority: "low", description: "c", dependencies: ["B", "A"] },
      ],
    },
    "test",
  );
  await store.importPlan(plan);
});

const { app, post } = routeHarness(() => store);

/** Claims (with start) the next ready task as `w1`; @returns the claim reply's body, checked against the schema. */
async function claimStarted() {
  const reply = await post("/tasks/claim", { worker_id: "w1", plan_id: "p", start: true });
  expect(reply.status).toBe(200);
  return claimResponseSchema.parse(reply.body);
}

/** Completes `taskId` at `version` with `extra` fields in the body. */
function complete(taskId: string, version: number, extra: Record<string, unknown> = {}) {
  return post(`/tasks/${taskId}/complete`, { worker_id: "w1", plan_id: "p", version, ...extra });
}

describe("a DONE task's work over the protocol", () => {
  it("complete stores branch and commit; the task payload, the read API and the event carry them", async () => {
    const claimed = await claimStarted();
    expect(claimed.task).toMatchObject({ id: "A", branch: null, commit: null });
    expect(claimed.dependency_work).toEqual([]);
    const done = await complete("A", claimed.task.version, { branch: BRANCH, commit: COMMIT });
    expect(done.status).toBe(200);
    expect(done.body.task).toMatchObject({ status: "DONE", branch: BRANCH, commit: COMMIT });
    const read = await app().request("/api/v1/plans/p/tasks");
    const tasks = planTasksResponseSchema.parse(await read.json()).tasks;
    expect(tasks.map((t) => [t.id, t.branch, t.commit])).toEqual([
      ["A", BRANCH, COMMIT],
      ["B", null, null],
      ["C", null, null],
    ]);
    const [event] = (await store.listEvents("p")).filter((e) => e.eventType === "COMPLETE");
    expect(event?.payload).toMatchObject({ branch: BRANCH, commit: COMMIT });
  });

  it("a claim's dependency_work lists the dependencies with work, in the order of `dependencies`", async () => {
    const a = await claimStarted();
    await complete("A", a.task.version, { branch: BRANCH, commit: COMMIT });
    const b = await claimStarted();
    expect(b.task.id).toBe("B");
    await complete("B", b.task.version, { branch: "whilly-tasks/p/b", commit: "b".repeat(64) });
    const c = await claimStarted();
    expect(c.task.id).toBe("C");
    expect(c.dependency_work).toEqual([
      { task_id: "B", branch: "whilly-tasks/p/b", commit: "b".repeat(64) },
      { task_id: "A", branch: BRANCH, commit: COMMIT },
    ]);
  });

  it.each([
    ["a commit that is not a commit id", { branch: BRANCH, commit: "HEAD" }],
    ["an upper-case commit", { branch: BRANCH, commit: COMMIT.toUpperCase() }],
    ["a branch without a commit", { branch: BRANCH }],
    ["a commit without a branch", { commit: COMMIT }],
  ])("%s is a 422 invalid_input naming commit; the task stays IN_PROGRESS", async (_name, work) => {
    const claimed = await claimStarted();
    const reply = await complete("A", claimed.task.version, work);
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ error_code: "invalid_input", task_id: null });
    expect(reply.body.detail).toMatch(/\bcommit\b/);
    expect((await store.getTask("p", "A"))?.status).toBe("IN_PROGRESS");
  });

  it("an empty branch is a 422 naming branch", async () => {
    const claimed = await claimStarted();
    const reply = await complete("A", claimed.task.version, { branch: "", commit: COMMIT });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toMatch(/^invalid request body: branch:/);
  });

  it.each([
    ["an option-looking branch", "-x"],
    ["an upload-pack option", "--upload-pack=touch /tmp/pwned"],
    ["a refspec writing another ref", "x:refs/heads/main"],
    ["a glob", "refs/heads/*"],
    ["a `..`", "a..b"],
    ["a ref path of dots", "refs/heads/.."],
    ["a space", "a b"],
    ["a terminal escape", "a\u001b]0;pwned\u0007"],
    ["HEAD", "HEAD"],
    ["a reflog shorthand", "@{-1}"],
    ["a `.lock` component", "a.lock/b"],
    ["a trailing slash", "a/"],
  ])("%s is a 422 naming branch; nothing is stored", async (_name, branch) => {
    const claimed = await claimStarted();
    const reply = await complete("A", claimed.task.version, { branch, commit: COMMIT });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toMatch(/^invalid request body: branch: .*git branch name/);
    expect((await store.getTask("p", "A"))?.status).toBe("IN_PROGRESS");
  });

  it("takes a branch of non-ASCII letters, as git does", async () => {
    const claimed = await claimStarted();
    const reply = await complete("A", claimed.task.version, { branch: "whilly-tasks/p/é", commit: COMMIT });
    expect(reply.status).toBe(200);
  });

  it("a protocol-v1 client that sends neither still completes, and dependents get no work to merge", async () => {
    const a = await claimStarted();
    const done = await complete("A", a.task.version, { cost_usd: "0.01", verification: "passed" });
    expect(done.status).toBe(200);
    expect(done.body.task).toMatchObject({ status: "DONE", branch: null, commit: null });
    const [event] = (await store.listEvents("p")).filter((e) => e.eventType === "COMPLETE");
    expect(event?.payload).not.toHaveProperty("commit");
    const b = await claimStarted();
    await complete("B", b.task.version);
    const c = await claimStarted();
    expect(c.task.id).toBe("C");
    expect(c.dependency_work).toEqual([]);
  });
});
