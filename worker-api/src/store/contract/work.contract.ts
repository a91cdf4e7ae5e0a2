import { InvalidInput, type TaskRecord, type TaskWork } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { Store } from "../store.js";
import { type ContractContext, caught, claimAs, plan, task } from "./helpers.contract.js";

const COMMIT_A = "a".repeat(40);
const COMMIT_C = "c".repeat(64);

/** Claims (with start) the next ready task of `p` as `w1`; fails the test when none is ready. */
async function started(store: Store) {
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  const claimed = await store.claim({ planId: "p", workerId: "w1", leaseMs: 60_000, start: true });
  if (!claimed) throw new Error("nothing ready in p");
  return claimed;
}

/** Completes `running` as `w1`, reporting `work` when given. */
async function completed(store: Store, running: TaskRecord, work?: TaskWork): Promise<TaskRecord> {
  const fence = { planId: "p", taskId: running.id, workerId: "w1", version: running.version };
  return (await store.complete({ ...fence, costMicroUsd: 0, ...(work ? { work } : {}) })).task;
}

/** Runs the next ready task to DONE; @returns its id. */
async function runNext(store: Store, work?: (id: string) => TaskWork | undefined): Promise<string> {
  const running = await started(store);
  await completed(store, running, work?.(running.id));
  return running.id;
}

/** A DONE task's work: stored on complete, logged, handed to dependents' claims, cleared by a reset. */
export function describeWorkContract(ctx: ContractContext): void {
  describe("task work (branch, commit)", () => {
    it("complete stores the work on the task and puts branch and commit in the COMPLETE event", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const work = { branch: "whilly-tasks/p/a", commit: COMMIT_A };
      const done = await completed(ctx.store, await started(ctx.store), work);
      expect(done).toMatchObject({ status: "DONE", work });
      expect((await ctx.store.getTask("p", "A"))?.work).toEqual(work);
      expect((await ctx.store.listTasks("p"))[0]?.work).toEqual(work);
      const [complete] = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "COMPLETE");
      expect(complete?.payload).toMatchObject({ branch: "whilly-tasks/p/a", commit: COMMIT_A });
    });

    it("complete without work (an older client) leaves none, and the event names no branch", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const done = await completed(ctx.store, await started(ctx.store));
      expect(done.status).toBe("DONE");
      expect(done.work).toBeUndefined();
      expect((await ctx.store.getTask("p", "A"))?.work).toBeUndefined();
      const [complete] = (await ctx.store.listEvents("p")).filter((e) => e.eventType === "COMPLETE");
      expect(complete?.payload).not.toHaveProperty("branch");
      expect(complete?.payload).not.toHaveProperty("commit");
    });

    it("a claim carries the work of the dependencies that have some, in the order of `dependencies`", async () => {
      await ctx.store.importPlan(
        plan("p", [task("A"), task("B"), task("C"), task("D", { deps: ["C", "A", "B"] })]),
      );
      const first = await started(ctx.store);
      expect(first.dependencyWork).toEqual([]);
      await completed(ctx.store, first, { branch: "whilly-tasks/p/a", commit: COMMIT_A });
      await runNext(ctx.store); // B: no work reported
      await runNext(ctx.store, (id) => ({ branch: `whilly-tasks/p/${id.toLowerCase()}`, commit: COMMIT_C }));
      const dependent = await started(ctx.store);
      expect(dependent.id).toBe("D");
      expect(dependent.dependencyWork).toEqual([
        { taskId: "C", branch: "whilly-tasks/p/c", commit: COMMIT_C },
        { taskId: "A", branch: "whilly-tasks/p/a", commit: COMMIT_A },
      ]);
    });

    it("claimWithPlan's task carries the dependencies' work too", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      await runNext(ctx.store, () => ({ branch: "whilly-tasks/p/a", commit: COMMIT_A }));
      const claimed = await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 60_000 });
      expect(claimed?.task.dependencyWork).toEqual([
        { taskId: "A", branch: "whilly-tasks/p/a", commit: COMMIT_A },
      ]);
    });

    it("a reset to PENDING clears the work, so a dependent's next claim carries none", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B", { deps: ["A"] })]));
      await runNext(ctx.store, () => ({ branch: "whilly-tasks/p/a", commit: COMMIT_A }));
      expect(await ctx.store.resetPlan("p", "keep_tasks")).toBe(2);
      expect((await ctx.store.getTask("p", "A"))?.work).toBeUndefined();
      await runNext(ctx.store); // A again, this time reporting no work
      const dependent = await started(ctx.store);
      expect(dependent).toMatchObject({ id: "B", dependencyWork: [] });
    });

    it("refuses a commit that is not a commit id, or a branch that is empty or no git branch name, naming the field; nothing changes", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const running = await started(ctx.store);
      const badCommit = await caught(completed(ctx.store, running, { branch: "b", commit: "HEAD" }));
      expect(badCommit).toBeInstanceOf(InvalidInput);
      expect((badCommit as InvalidInput).field).toBe("commit");
      const badBranch = await caught(completed(ctx.store, running, { branch: "", commit: COMMIT_A }));
      expect((badBranch as InvalidInput).field).toBe("branch");
      // A refspec, not a branch: integrate's fetch would write the clone's main with it.
      const refspec = await caught(
        completed(ctx.store, running, { branch: "x:refs/heads/main", commit: COMMIT_A }),
      );
      expect((refspec as InvalidInput).field).toBe("branch");
      expect((refspec as InvalidInput).message).toMatch(/^branch is not a git branch name: it holds ":"/);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "IN_PROGRESS", work: undefined });
      expect(await claimAs(ctx.store, "p", "w2")).toBeUndefined();
    });
  });
}
