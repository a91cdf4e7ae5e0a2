import { describe, expect, it } from "vitest";
import type { Store } from "../store.js";
import { type ContractContext, eventTypes, plan, task } from "./helpers.contract.js";

const A = { planId: "p", taskId: "A" };
const B = { planId: "p", taskId: "B" };

/** A task claimed by `workerId` (registered first) whose reply, in these tests, never reached it. */
async function claimUnseen(store: Store, workerId: string, start: boolean) {
  await store.upsertWorker({ workerId, hostname: "h" });
  const claimed = await store.claimWithPlan({ planId: "p", workerId, leaseMs: 600_000, start });
  if (!claimed) throw new Error("nothing claimed");
  return claimed.task;
}

async function releases(store: Store) {
  const events = await store.listEvents("p", { limit: 1000 });
  return events.filter((e) => e.eventType === "RELEASE").map((e) => ({ taskId: e.taskId, ...e.payload }));
}

/**
 * A worker that says what it runs shows, by leaving a task out, that a claim's reply never reached it:
 * the second heartbeat with a list that leaves the task out since its claim releases it (`claim_lost`).
 */
export function describeClaimLostContract(ctx: ContractContext): void {
  describe("claims whose reply was lost", () => {
    it("the second list that leaves out a started claim releases it, with its attempt given back", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      const a = await claimUnseen(ctx.store, "w1", true);
      expect(a).toMatchObject({ id: "A", status: "IN_PROGRESS", attempts: 1 });

      expect(await ctx.store.heartbeat("w1", 600_000, [])).toEqual({ ok: true, renewed: [], released: [] });
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "IN_PROGRESS", claimedBy: "w1" });
      expect(await ctx.store.heartbeat("w1", 600_000, [B])).toEqual({ ok: true, renewed: [], released: [A] });

      expect(await ctx.store.getTask("p", "A")).toMatchObject({
        status: "PENDING",
        claimedBy: undefined,
        attempts: 0,
        version: a.version + 1,
      });
      expect(await releases(ctx.store)).toEqual([
        {
          taskId: "A",
          reason: "claim_lost",
          worker_id: "w1",
          version: a.version + 1,
          attempt_returned: true,
        },
      ]);
      const again = await claimUnseen(ctx.store, "w2", true);
      expect(again).toMatchObject({ id: "A", attempts: 1 });
    });

    it("a claim without start goes back with its attempts as they were", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const a = await claimUnseen(ctx.store, "w1", false);
      await ctx.store.heartbeat("w1", 600_000, []);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([A]);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING", attempts: 0 });
      expect(await releases(ctx.store)).toEqual([
        {
          taskId: "A",
          reason: "claim_lost",
          worker_id: "w1",
          version: a.version + 1,
          attempt_returned: false,
        },
      ]);
      expect(await eventTypes(ctx.store, "p", "A")).toEqual(["task.created", "CLAIM", "RELEASE"]);
    });

    it("a task named once is never judged so again, and named tasks are renewed", async () => {
      await ctx.store.importPlan(plan("p", [task("A"), task("B")]));
      await claimUnseen(ctx.store, "w1", true);
      await claimUnseen(ctx.store, "w1", true);
      // A is named by the first beat after the claim; B never is.
      expect(await ctx.store.heartbeat("w1", 600_000, [A])).toEqual({ ok: true, renewed: [A], released: [] });
      const second = await ctx.store.heartbeat("w1", 600_000, []);
      expect(second).toEqual({ ok: true, renewed: [], released: [B] });
      for (let i = 0; i < 3; i++) await ctx.store.heartbeat("w1", 600_000, []);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "IN_PROGRESS", claimedBy: "w1" });
    });

    it("a protocol-v1 client that sends no list is never judged, and its leases are renewed", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await claimUnseen(ctx.store, "w1", true);
      for (let i = 0; i < 4; i++) {
        expect(await ctx.store.heartbeat("w1", 600_000)).toEqual({ ok: true, renewed: [A], released: [] });
      }
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "IN_PROGRESS", attempts: 1 });
      // Lists sent afterwards still count from the claim: v1 beats did not name the task.
      await ctx.store.heartbeat("w1", 600_000, []);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([A]);
    });

    it("only the holder's heartbeats count, and a new claim starts the count again", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await claimUnseen(ctx.store, "w1", true);
      await ctx.store.upsertWorker({ workerId: "w2", hostname: "h" });
      for (let i = 0; i < 3; i++) await ctx.store.heartbeat("w2", 600_000, []);
      await ctx.store.heartbeat("w1", 600_000, []);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([A]);

      await claimUnseen(ctx.store, "w1", true);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([]);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([A]);
    });

    it("a budgeted plan gets back the reservation of a claim lost or handed back unseen", async () => {
      await ctx.store.createPlan({ id: "p", name: "b", budgetMicroUsd: 1_000, reserveMicroUsd: 400 });
      await ctx.store.importPlan(plan("p", [task("A"), task("B"), task("C")]));
      const a = await claimUnseen(ctx.store, "w1", true);
      await claimUnseen(ctx.store, "w2", true);
      expect(await ctx.store.getPlan("p")).toMatchObject({ reservedMicroUsd: 800 });
      // Room for no third reservation until one comes back.
      expect(
        await ctx.store.claimWithPlan({ planId: "p", workerId: "w1", leaseMs: 600_000 }),
      ).toBeUndefined();

      await ctx.store.heartbeat("w1", 600_000, []);
      expect((await ctx.store.heartbeat("w1", 600_000, [])).released).toEqual([A]);
      expect(await ctx.store.getPlan("p")).toMatchObject({ reservedMicroUsd: 400 });
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING" });

      const b = await ctx.store.getTask("p", "B");
      const fence = {
        planId: "p",
        taskId: "B",
        workerId: "w2",
        version: b?.version ?? 0,
        reason: "client_gone",
      };
      expect(await ctx.store.releaseUnseenClaim(fence)).toEqual(B);
      expect(await ctx.store.getPlan("p")).toMatchObject({ reservedMicroUsd: 0 });
      expect((await claimUnseen(ctx.store, "w3", true)).id).toBe("A");
      expect(a.id).toBe("A");
    });

    it("liveness alone (touchWorker) judges nothing", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      await claimUnseen(ctx.store, "w1", true);
      for (let i = 0; i < 3; i++) expect(await ctx.store.touchWorker("w1")).toBe(true);
      await ctx.store.heartbeat("w1", 600_000, []);
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "IN_PROGRESS" });
      expect(await ctx.store.touchWorker("ghost")).toBe(false);
    });

    it("a claim handed back unseen goes to PENDING with its attempt given back, once", async () => {
      await ctx.store.importPlan(plan("p", [task("A")]));
      const a = await claimUnseen(ctx.store, "w1", true);
      const fence = { planId: "p", taskId: "A", workerId: "w1", version: a.version, reason: "client_gone" };
      expect(await ctx.store.releaseUnseenClaim(fence)).toEqual(A);
      expect(await ctx.store.releaseUnseenClaim(fence)).toBeUndefined();
      expect(await ctx.store.getTask("p", "A")).toMatchObject({ status: "PENDING", attempts: 0 });
      expect(await releases(ctx.store)).toEqual([
        {
          taskId: "A",
          reason: "client_gone",
          worker_id: "w1",
          version: a.version + 1,
          attempt_returned: true,
        },
      ]);
    });
  });
}
