import { InvalidInput, PlanNotFound, type RetryBackoff, type TaskRecord } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { Store } from "../store.js";
import { type ContractContext, caught, claimAs, ONE_ATTEMPT, plan, task } from "./helpers.contract.js";

/** A backoff of 0: a retried task is claimable again at once. */
const NOW: RetryBackoff = { baseMs: 0, capMs: 0 };
/** A backoff long enough that no test outlives it. */
const LATER: RetryBackoff = { baseMs: 3_600_000, capMs: 3_600_000 };

/** Claims (with start) the next ready task of `p` as `workerId`; fails when none is ready. */
async function started(store: Store, workerId = "w1", planId = "p"): Promise<TaskRecord> {
  await store.upsertWorker({ workerId, hostname: "h" });
  const claimed = await store.claim({ planId, workerId, leaseMs: 60_000, start: true });
  if (!claimed) throw new Error(`nothing ready in ${planId}`);
  return claimed;
}

/** Fails `running` with a check's failure and `backoff`. */
function failed(store: Store, running: TaskRecord, backoff: RetryBackoff, workerId = "w1") {
  return store.fail({
    planId: running.planId,
    taskId: running.id,
    workerId,
    version: running.version,
    costMicroUsd: 0,
    reason: "verification_failed",
    failure: { step: "npm test", exit_code: 1, output_tail: "1 failing", session_id: "s-1" },
    backoff,
  });
}

/** Retries by `max_attempts`, the not-before backoff, the failure carried to the next claim, verification. */
export function describeRetryContract(ctx: ContractContext): void {
  describe("retries", () => {
    it("a failure with attempts left goes back to PENDING, not before the backoff, with one FAIL event", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      const running = await started(ctx.store);
      const { task: retried } = await failed(ctx.store, running, LATER);
      expect(retried).toMatchObject({ status: "PENDING", attempts: 1, claimedBy: undefined });
      // now() is the statement's, so the pause is exactly the base after the first attempt.
      expect(retried.notBefore?.getTime()).toBe(retried.updatedAt.getTime() + LATER.baseMs);
      expect(retried.lastFailure).toEqual({
        attempt: 1,
        worker_id: "w1",
        reason: "verification_failed",
        step: "npm test",
        exit_code: 1,
        output_tail: "1 failing",
        session_id: "s-1",
      });
      const fail = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "FAIL");
      expect(fail).toHaveLength(1);
      expect(fail[0]?.payload).toMatchObject({ retry: true, attempt: 1, max_attempts: 3 });
      expect(fail[0]?.payload.not_before).toBe(retried.notBefore?.toISOString());
      // Not claimable before its time; its dependent stays blocked meanwhile.
      expect(await claimAs(ctx.store, "p", "w2")).toBeUndefined();
      expect((await ctx.store.getTask("p", "B"))?.status).toBe("PENDING");
    });

    it("the next claim carries the last failure; the last attempt ends FAILED", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      let running = await started(ctx.store);
      await failed(ctx.store, running, NOW);
      running = await started(ctx.store, "w2");
      expect(running.attempts).toBe(2);
      expect(running.lastFailure).toMatchObject({ attempt: 1, worker_id: "w1", step: "npm test" });
      await failed(ctx.store, running, NOW, "w2");
      running = await started(ctx.store);
      const { task: last } = await failed(ctx.store, running, NOW);
      expect(last).toMatchObject({ status: "FAILED", attempts: 3, notBefore: undefined });
      expect(last.lastFailure).toMatchObject({ attempt: 3, worker_id: "w1", reason: "verification_failed" });
      const fails = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "FAIL");
      expect(fails.map((e) => [e.payload.retry, e.payload.not_before === null])).toEqual([
        [true, false],
        [true, false],
        [false, true],
      ]);
      expect(await ctx.store.listBlocked("p")).toEqual([{ taskId: "B", blockedBy: ["A"] }]);
    });

    it("doubles the pause per failed attempt up to the cap", async () => {
      const backoff = { baseMs: 1_000, capMs: 3_000 };
      const pauses: number[] = [];
      for (const attempt of [1, 2, 3, 4]) {
        // Attempt `attempt` of its own plan: the ones before it fail with no pause.
        const planId = `p${attempt}`;
        await ctx.store.importPlan(plan(planId, [task("A")], { maxAttempts: 5 }));
        for (let n = 1; n < attempt; n++)
          await failed(ctx.store, await started(ctx.store, "w1", planId), NOW);
        const { task: retried } = await failed(ctx.store, await started(ctx.store, "w1", planId), backoff);
        expect(retried.attempts).toBe(attempt);
        pauses.push((retried.notBefore?.getTime() ?? 0) - retried.updatedAt.getTime());
      }
      expect(pauses).toEqual([1_000, 2_000, 3_000, 3_000]);
    });

    it("the task's max_attempts wins over the plan's, which wins over the default; setPlanMaxAttempts changes it", async () => {
      await ctx.store.importPlan(
        plan("p", [task("A", { maxAttempts: 1 }), task("B"), task("C")], { maxAttempts: 2 }),
      );
      const limits: Record<string, unknown> = {};
      for (const id of ["A", "B"]) {
        const running = await started(ctx.store);
        expect(running.id).toBe(id);
        const { task: after } = await failed(ctx.store, running, LATER);
        limits[id] = after.status;
      }
      expect(limits).toEqual({ A: "FAILED", B: "PENDING" });
      const plan1 = await ctx.store.setPlanMaxAttempts("p", 1);
      expect(plan1.maxAttempts).toBe(1);
      const c = await started(ctx.store);
      expect((await failed(ctx.store, c, LATER)).task.status).toBe("FAILED");
      expect((await ctx.store.setPlanMaxAttempts("p", undefined)).maxAttempts).toBeUndefined();
      expect(await caught(ctx.store.setPlanMaxAttempts("p", 0))).toBeInstanceOf(InvalidInput);
      expect(await caught(ctx.store.setPlanMaxAttempts("p", 101))).toBeInstanceOf(InvalidInput);
      expect(await caught(ctx.store.setPlanMaxAttempts("nope", 2))).toBeInstanceOf(PlanNotFound);
    });

    it("refuses a bad backoff before writing anything", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const running = await started(ctx.store);
      for (const backoff of [
        { baseMs: -1, capMs: 10 },
        { baseMs: 10, capMs: 5 },
        { baseMs: 1.5, capMs: 10 },
      ]) {
        expect(await caught(failed(ctx.store, running, backoff))).toBeInstanceOf(InvalidInput);
      }
      expect((await ctx.store.getTask("p", "A"))?.status).toBe("IN_PROGRESS");
    });

    it("complete stores the verification (none from older clients) and clears the progress", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const a = await started(ctx.store);
      await ctx.store.heartbeat("w1", 60_000, [
        { planId: "p", taskId: "A", progress: { turns: 3, last_tool: "Bash", phase: "agent" } },
      ]);
      expect((await ctx.store.getTask("p", "A"))?.progress).toEqual({
        turns: 3,
        last_tool: "Bash",
        phase: "agent",
      });
      const fence = { planId: "p", workerId: "w1", costMicroUsd: 0 };
      const done = await ctx.store.complete({
        ...fence,
        taskId: "A",
        version: a.version,
        verification: "unverified",
      });
      expect(done.task).toMatchObject({ status: "DONE", verification: "unverified", progress: undefined });
      const b = await started(ctx.store);
      const old = await ctx.store.complete({ ...fence, taskId: "B", version: b.version });
      expect(old.task.verification).toBeUndefined();
      expect(
        await caught(
          ctx.store.complete({
            ...fence,
            taskId: "B",
            version: b.version,
            verification: "maybe" as "passed",
          }),
        ),
      ).toBeInstanceOf(InvalidInput);
    });

    it("a heartbeat stores progress only for the leases it renewed", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await started(ctx.store);
      await ctx.store.heartbeat("w1", 60_000, [
        { planId: "p", taskId: "A", progress: { turns: 1 } },
        { planId: "p", taskId: "B", progress: { turns: 9 } },
      ]);
      expect((await ctx.store.getTask("p", "A"))?.progress).toEqual({ turns: 1 });
      expect((await ctx.store.getTask("p", "B"))?.progress).toBeUndefined();
      // A beat without progress keeps the last one.
      await ctx.store.heartbeat("w1", 60_000, [{ planId: "p", taskId: "A" }]);
      expect((await ctx.store.getTask("p", "A"))?.progress).toEqual({ turns: 1 });
    });

    it("reset keep_tasks clears not-before, last failure, verification and progress", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const a = await started(ctx.store);
      await failed(ctx.store, a, LATER);
      const b = await started(ctx.store);
      await ctx.store.complete({
        planId: "p",
        taskId: "B",
        workerId: "w1",
        version: b.version,
        costMicroUsd: 0,
        verification: "passed",
      });
      await ctx.store.resetPlan("p", "keep_tasks");
      for (const t of await ctx.store.listTasks("p")) {
        expect(t).toMatchObject({
          status: "PENDING",
          attempts: 0,
          notBefore: undefined,
          lastFailure: undefined,
          verification: undefined,
          progress: undefined,
        });
      }
    });

    it("reset failed keeps the last failure for the retry's prompt", async () => {
      await ctx.store.importPlan(plan("p", [task("A")], ONE_ATTEMPT));
      await failed(ctx.store, await started(ctx.store), LATER);
      await ctx.store.resetPlan("p", "failed");
      const again = await started(ctx.store);
      expect(again.lastFailure).toMatchObject({ attempt: 1, reason: "verification_failed" });
    });
  });

  describe("rate-limited release", () => {
    it("gives the attempt back and writes worker.paused with the release", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const running = await started(ctx.store);
      const until = new Date("2030-01-01T20:00:00.000Z");
      const released = await ctx.store.release({
        planId: "p",
        taskId: "A",
        workerId: "w1",
        version: running.version,
        reason: "rate_limited",
        pause: { until, message: "You've hit your limit · resets 8pm (America/New_York)" },
      });
      expect(released).toMatchObject({ status: "PENDING", attempts: 0 });
      const events = await ctx.store.listEvents("p");
      expect(events.slice(-2).map((e) => [e.eventType, e.payload])).toEqual([
        ["RELEASE", { version: released.version, reason: "rate_limited", worker_id: "w1" }],
        [
          "worker.paused",
          {
            worker_id: "w1",
            reason: "rate_limited",
            until: until.toISOString(),
            message: "You've hit your limit · resets 8pm (America/New_York)",
          },
        ],
      ]);
    });

    it("a release without a pause writes no worker.paused; a refused one writes nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const running = await started(ctx.store);
      const fence = { planId: "p", taskId: "A", workerId: "w1", reason: "rate_limited" };
      const pause = { until: new Date("2030-01-01T00:00:00Z") };
      await caught(ctx.store.release({ ...fence, version: running.version + 5, pause }));
      await ctx.store.release({ ...fence, version: running.version });
      const types = (await ctx.store.listEvents("p")).map((e) => e.eventType);
      expect(types).not.toContain("worker.paused");
    });
  });

  describe("plan attempt settings", () => {
    it("import stores verify, setup and max_attempts, and reports a file that changes them", async () => {
      const spec = plan("p", [task("A", { maxAttempts: 4 })], {
        verify: ["npm test", "npm run lint"],
        setup: "npm ci",
        maxAttempts: 2,
      });
      const first = await ctx.store.importPlan(spec);
      expect(first.plan).toMatchObject({
        verify: ["npm test", "npm run lint"],
        setup: "npm ci",
        maxAttempts: 2,
      });
      expect((await ctx.store.getTask("p", "A"))?.maxAttempts).toBe(4);
      const same = await ctx.store.importPlan(spec);
      expect(same).toMatchObject({ planChanged: [], unchanged: ["A"] });
      const other = await ctx.store.importPlan(
        plan("p", [task("A", { maxAttempts: 5 })], { verify: ["npm test"], maxAttempts: 2 }),
      );
      expect(other).toMatchObject({ planChanged: ["verify", "setup"], changed: ["A"] });
      const none = await ctx.store.importPlan(plan("q", [task("A")]));
      expect(none.plan).toMatchObject({ verify: [], setup: undefined, maxAttempts: undefined });
    });

    it("refuses a max_attempts out of range, naming the field", async () => {
      const error = await caught(ctx.store.importPlan(plan("p", [task("A", { maxAttempts: 0 })])));
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).field).toBe('tasks["A"].max_attempts');
      expect(await ctx.store.getPlan("p")).toBeUndefined();
    });
  });
}
