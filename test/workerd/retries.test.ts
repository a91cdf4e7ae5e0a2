import { parsePlanObject } from "@whilly/core";
import { describe, expect, inject, it } from "vitest";
import { call, register, withStore } from "./support.js";

describe.skipIf(!inject("workerdDatabaseUrl"))("key-file locks and retries on the Worker", () => {
  it("claims keyed tasks under the plan's lock through the Neon driver, and a failed attempt waits to retry", async () => {
    const planId = `plan-${crypto.randomUUID().slice(0, 8)}`;
    const file = (id: string, keyFiles: string[]) => ({
      id,
      status: "pending",
      priority: "medium",
      description: id,
      key_files: keyFiles,
    });
    const plan = parsePlanObject(
      { project: planId, tasks: [file("A", ["x.ts"]), file("B", ["x.ts"]), file("C", ["y.ts"])] },
      "workerd-test",
    );
    await withStore((store) => store.importPlan(plan));
    const { workerId, token } = await register();
    const claim = () =>
      call("POST", "/tasks/claim", { worker_id: workerId, plan_id: planId, start: true }, token);

    const a = await claim();
    expect(a.body.task).toMatchObject({ id: "A", max_attempts: 3, previous_failure: null });
    expect((await claim()).body.task.id).toBe("C");
    // B shares x.ts with A, which is in flight. (Asked of the store: the route would park the claim.)
    const none = await withStore((store) => store.claim({ planId, workerId, leaseMs: 60_000 }));
    expect(none).toBeUndefined();

    const failed = await call(
      "POST",
      "/tasks/A/fail",
      {
        worker_id: workerId,
        plan_id: planId,
        version: a.body.task.version,
        reason: "verification_failed",
        failure: { step: "npm test", exit_code: 1 },
      },
      token,
    );
    expect(failed.body.task).toMatchObject({ status: "PENDING", attempts: 1 });
    // The default backoff (30 s) holds A back; x.ts is free, so B runs.
    expect(Date.parse(failed.body.task.not_before)).toBeGreaterThan(Date.now());
    expect((await claim()).body.task.id).toBe("B");
    const stored = await withStore((store) => store.getTask(planId, "A"));
    expect(stored?.lastFailure).toMatchObject({
      attempt: 1,
      reason: "verification_failed",
      step: "npm test",
    });
  });
});
