import { OUTPUT_TAIL_BYTES, parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { allSecretsText, leakedSecrets } from "../../../test/fixtures/secret-samples.js";
import type { Store } from "../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../store/testing/fixtures.js";
import { routeHarness } from "./testing/route-harness.js";

// A worker of an older version sends its output unredacted: the control plane must not keep or serve
// a secret from it, nor one of its own.

const OWN_SECRET = "control-plane-own-secret-value";

let fixture: StoreFixture;
let store: Store;
const { app, post } = routeHarness(() => store);

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  const tasks = ["A", "B", "C"].map((id) => ({ id, status: "pending", priority: "high", description: id }));
  await store.importPlan(parsePlanObject({ project: "p", tasks }, "test"));
  await store.upsertWorker({ workerId: "w", hostname: "h" });
});

async function claim(target: ReturnType<typeof app>): Promise<{ id: string; version: number }> {
  const reply = await post("/tasks/claim", { worker_id: "w", plan_id: "p" }, target);
  return reply.body.task;
}

async function servedEvents(target: ReturnType<typeof app>): Promise<string> {
  const response = await target.request("/api/v1/plans/p/events");
  return response.text();
}

describe("what the control plane keeps from workers", () => {
  it("hides secrets in a failure kept for the retry and in a pause's message", async () => {
    const target = app({ secrets: [OWN_SECRET] });
    const text = `${allSecretsText()}\nand ${OWN_SECRET}`;
    const a = await claim(target);
    const failure = { step: `npm test ${OWN_SECRET}`, output_tail: text, session_id: "s" };
    const fence = { worker_id: "w", plan_id: "p", version: a.version };
    expect(
      (await post(`/tasks/${a.id}/fail`, { ...fence, reason: "verification_failed", failure }, target))
        .status,
    ).toBe(200);
    const b = await claim(target);
    const pause = {
      reason: "rate_limited",
      paused_until: "2030-01-01T00:00:00Z",
      pause_message: text.slice(0, 2048),
    };
    expect(
      (
        await post(
          `/tasks/${b.id}/release`,
          { worker_id: "w", plan_id: "p", version: b.version, ...pause },
          target,
        )
      ).status,
    ).toBe(200);

    const stored = JSON.stringify([await store.listTasks("p"), await store.listEvents("p")]);
    expect(stored).toContain("[redacted]");
    expect(leakedSecrets(stored)).toEqual([]);
    expect(stored).not.toContain(OWN_SECRET);
    const served = await (await target.request("/api/v1/plans/p/tasks")).text();
    expect(served).toContain("previous_failure");
    expect(leakedSecrets(served)).toEqual([]);
    expect(served).not.toContain(OWN_SECRET);
  });

  it("hides every secret shape, and its own secrets, in stored details and reasons", async () => {
    const target = app({ secrets: [OWN_SECRET] });
    const text = `${allSecretsText()}\nand ${OWN_SECRET}`;
    const a = await claim(target);
    const detail = { output_tail: text, message: text, nested: { errors: [text] } };
    const done = await post(
      `/tasks/${a.id}/complete`,
      { worker_id: "w", plan_id: "p", version: a.version, detail },
      target,
    );
    expect(done.status).toBe(200);
    const b = await claim(target);
    const reason = `failed: ${text}`.slice(0, 2048);
    const failed = await post(
      `/tasks/${b.id}/fail`,
      { worker_id: "w", plan_id: "p", version: b.version, reason, detail },
      target,
    );
    expect(failed.status).toBe(200);
    const c = await claim(target);
    const released = await post(
      `/tasks/${c.id}/release`,
      { worker_id: "w", plan_id: "p", version: c.version, reason },
      target,
    );
    expect(released.status).toBe(200);

    const stored = JSON.stringify(await store.listEvents("p"));
    expect(stored).toContain("[redacted]");
    expect(leakedSecrets(stored)).toEqual([]);
    expect(stored).not.toContain(OWN_SECRET);
    const served = await servedEvents(target);
    expect(leakedSecrets(served)).toEqual([]);
    expect(served).not.toContain(OWN_SECRET);
  });

  it("drops the first word of a full-length tail, which the worker's cut may have split", async () => {
    const target = app();
    const a = await claim(target);
    // An old worker cut this tail inside a GitHub token: the `ghp_` prefix is gone, the rest is not.
    const fragment = "A1b2C3d4E5A1b2C3d4E5abcdef";
    const tail = `${fragment} ${"x".repeat(OUTPUT_TAIL_BYTES - fragment.length - 1)}`;
    const detail = { output_tail: tail };
    await post(
      `/tasks/${a.id}/complete`,
      { worker_id: "w", plan_id: "p", version: a.version, detail },
      target,
    );
    const stored = JSON.stringify(await store.listEvents("p"));
    expect(stored).not.toContain(fragment.slice(4));
    expect(stored).toContain('"output_tail":"… xxx');
  });

  it("serves events stored before a shape was known without the secret", async () => {
    await store.appendEvent({
      planId: "p",
      taskId: "A",
      eventType: "agent.output",
      payload: { text: allSecretsText() },
      detail: { output_tail: allSecretsText() },
    });
    const served = await servedEvents(app());
    expect(served).toContain("[redacted]");
    expect(leakedSecrets(served)).toEqual([]);
  });
});
