import { env, exports } from "cloudflare:workers";
import { parsePlanObject } from "@whilly/core";
import { describe, expect, inject, it } from "vitest";
import { call, register, withStore } from "./support.js";

const CLAIMERS = 12;
/** As many tasks as claimers, so every claimer that stays is answered at once. */
const TASKS = 12;
/** Hang-ups are spread over this window (ms), the tasks becoming ready in its middle. */
const ABORT_WINDOW_MS = 60;

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.skipIf(!inject("workerdDatabaseUrl"))("parked claims whose clients hang up (Worker)", () => {
  it("leave no task held for a client that hung up, and hand back attempts", async () => {
    const planId = `hang-${crypto.randomUUID().slice(0, 8)}`;
    const tasks = [
      { id: "gate", status: "pending", priority: "high", description: "gate" },
      ...Array.from({ length: TASKS }, (_, i) => ({
        id: `t${i}`,
        status: "pending",
        priority: "high",
        description: `task ${i}`,
        dependencies: ["gate"],
      })),
    ];
    await withStore((store) => store.importPlan(parsePlanObject({ project: planId, tasks }, "workerd-test")));
    const gatekeeper = await register("gatekeeper");
    const gate = await call(
      "POST",
      "/tasks/claim",
      { worker_id: gatekeeper.workerId, plan_id: planId },
      gatekeeper.token,
    );
    expect(gate.body.task.id).toBe("gate");
    const workers = await Promise.all(Array.from({ length: CLAIMERS }, (_, i) => register(`c${i}`)));

    const coordinator = env.COORDINATOR.get(env.COORDINATOR.idFromName(planId));
    // Every other claimer hangs up at a random moment around the gate's completion, once all are parked.
    let start = () => {};
    const go = new Promise<void>((resolve) => (start = resolve));
    const outcomes = workers.map(async (w, i) => {
      const hangUp = new AbortController();
      let answered = false;
      if (i % 2) {
        void go.then(() =>
          setTimeout(() => {
            if (!answered) hangUp.abort();
          }, Math.random() * ABORT_WINDOW_MS),
        );
      }
      try {
        const response = await exports.default.fetch("http://whilly.test/tasks/claim", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${w.token}` },
          body: JSON.stringify({ worker_id: w.workerId, plan_id: planId, start: true }),
          signal: hangUp.signal,
        });
        answered = true;
        const text = await response.text();
        return {
          workerId: w.workerId,
          taskId: response.status === 200 ? JSON.parse(text).task.id : undefined,
        };
      } catch {
        return { workerId: w.workerId, taskId: undefined };
      }
    });
    await until(async () => (await coordinator.parkedCount()) === CLAIMERS);
    start();
    await new Promise((resolve) => setTimeout(resolve, ABORT_WINDOW_MS / 2));
    const fence = { worker_id: gatekeeper.workerId, plan_id: planId, version: gate.body.task.version };
    expect((await call("POST", "/tasks/gate/complete", fence, gatekeeper.token)).status).toBe(200);
    const seen = await Promise.all(outcomes);

    const told = new Map(seen.flatMap((o) => (o.taskId ? [[o.taskId, o.workerId] as const] : [])));
    const after = (await withStore((store) => store.listTasks(planId))).filter((t) => t.id !== "gate");
    const held = after.filter((t) => t.status === "CLAIMED" || t.status === "IN_PROGRESS");
    expect(held.filter((t) => told.get(t.id) !== t.claimedBy).map((t) => t.id)).toEqual([]);
    expect(after.map((t) => [t.id, t.attempts])).toEqual(
      after.map((t) => [t.id, t.status === "PENDING" ? 0 : 1]),
    );
  }, 60_000);
});
