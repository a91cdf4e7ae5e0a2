import {
  type AgentLevel,
  chooseAgent,
  exportPlan,
  parsePlanFile,
  type RunChoice,
  type WorkerCapabilities,
} from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { Store } from "../store.js";
import { type ContractContext, plan, task } from "./helpers.contract.js";

const CLAUDE: WorkerCapabilities = { agents: ["claude"], tags: [] };

/** Registers `workerId` and claims one task of `planId` with `capabilities` and `choice`. */
async function claimWith(
  store: Store,
  workerId: string,
  capabilities: WorkerCapabilities | undefined,
  choice: RunChoice = {},
  planId = "p",
) {
  await store.upsertWorker({ workerId, hostname: "test-host" });
  return store.claim({ planId, workerId, leaseMs: 60_000, start: true, capabilities, choice });
}

/** A level's agent and model, those it names only. */
function defined(level: AgentLevel): { agent?: string; model?: string } {
  return {
    ...(level.agent ? { agent: level.agent } : {}),
    ...(level.model ? { model: level.model } : {}),
  };
}

/** A task routed by agent, model and tags; no key files, so claims never wait on each other's files. */
const routed = (id: string, more: { agent?: string; model?: string; requiredTags?: string[] } = {}) => ({
  ...task(id, { keyFiles: [] }),
  ...more,
});

/** Claims go to the workers that can run them, in the one claim statement (docs/agents.md#routing). */
export function describeRoutingContract(ctx: ContractContext): void {
  describe("routing by capabilities", () => {
    it("stores the plan's and tasks' agent, model, fallback_agents and required_tags; export keeps them", async () => {
      const spec = plan(
        "p",
        [routed("A", { agent: "codex", model: "gpt-5", requiredTags: ["gpu"] }), routed("B")],
        {
          agent: "claude",
          model: "claude-opus-4-1",
          fallbackAgents: ["codex"],
        },
      );
      const imported = await ctx.store.importPlan(spec);
      expect(imported.plan).toMatchObject({
        agent: "claude",
        model: "claude-opus-4-1",
        fallbackAgents: ["codex"],
      });
      const stored = await ctx.store.getPlan("p");
      const tasks = await ctx.store.listTasks("p");
      expect(tasks[0]).toMatchObject({ agent: "codex", model: "gpt-5", requiredTags: ["gpu"] });
      expect(tasks[1]?.requiredTags).toBeUndefined();
      if (!stored) throw new Error("plan not stored");
      const again = parsePlanFile(exportPlan(stored, tasks), "export");
      expect(again).toMatchObject({ agent: "claude", model: "claude-opus-4-1", fallbackAgents: ["codex"] });
      expect(again.tasks[0]).toMatchObject({ agent: "codex", model: "gpt-5", requiredTags: ["gpu"] });
      // The same file again changes nothing; another agent is reported as a change.
      expect((await ctx.store.importPlan(spec)).changed).toEqual([]);
      const moved = plan("p", [routed("A", { agent: "gemini", requiredTags: ["gpu"] }), routed("B")], spec);
      const result = await ctx.store.importPlan({ ...moved, agent: "codex" });
      expect(result.changed).toEqual(["A"]);
      expect(result.planChanged).toEqual(["agent"]);
    });

    it("hands a task only to a worker with its agent and every required tag", async () => {
      await ctx.store.importPlan(
        plan("p", [
          routed("A", { agent: "codex" }),
          routed("B", { requiredTags: ["gpu"] }),
          routed("C", { requiredTags: ["gpu", "linux"] }),
          routed("D"),
        ]),
      );
      // An older worker (no capabilities): claude, no tags.
      expect((await claimWith(ctx.store, "old", undefined))?.id).toBe("D");
      expect(await claimWith(ctx.store, "old", undefined)).toBeUndefined();
      // Tags are a subset test: gpu alone takes B, not C.
      expect((await claimWith(ctx.store, "gpu", { agents: ["claude"], tags: ["gpu"] }))?.id).toBe("B");
      expect(await claimWith(ctx.store, "gpu", { agents: ["claude"], tags: ["gpu"] })).toBeUndefined();
      const both = { agents: ["claude", "codex"], tags: ["linux", "gpu", "macos"] };
      const a = await claimWith(ctx.store, "both", both);
      expect(a).toMatchObject({ id: "A", choice: { agent: "codex", model: undefined } });
      expect((await claimWith(ctx.store, "both", both))?.id).toBe("C");
    });

    it("--force-agent routes every task to the forced agent, and the worker must have it", async () => {
      await ctx.store.importPlan(plan("p", [routed("A", { agent: "codex" }), routed("B")]));
      expect(await claimWith(ctx.store, "w", CLAUDE, { forceAgent: "gemini" })).toBeUndefined();
      const forced = await claimWith(
        ctx.store,
        "w",
        { agents: ["gemini"], tags: [] },
        { forceAgent: "gemini" },
      );
      expect(forced).toMatchObject({ id: "A", choice: { agent: "gemini" } });
      // The worker's --agent only names the agent of tasks whose task and plan name none.
      const own = await claimWith(
        ctx.store,
        "v",
        { agents: ["codex"], tags: [] },
        { agent: "codex", model: "m" },
      );
      expect(own).toMatchObject({ id: "B", choice: { agent: "codex", model: "m" } });
    });

    it("resolves the attempt's agent and model as chooseAgent does", async () => {
      const agents = [undefined, "claude", "codex"];
      const models = [undefined, "m1"];
      type Case = { task: AgentLevel; plan: AgentLevel; run: RunChoice };
      const cases: Case[] = agents.flatMap((ta) =>
        agents.flatMap((pa) =>
          agents.flatMap((ra) =>
            models.map((tm) => ({
              task: { agent: ta, model: tm },
              plan: { agent: pa, model: tm === undefined ? "pm" : undefined },
              run: { agent: ra, model: ra === undefined ? undefined : "rm" },
            })),
          ),
        ),
      );
      cases.push({ task: { agent: "codex", model: "x" }, plan: {}, run: { forceAgent: "claude" } });
      cases.push({ task: { agent: "codex" }, plan: {}, run: { forceAgent: "claude", forceModel: "f" } });
      const all = { agents: ["claude", "codex"], tags: [] };
      for (const [index, c] of cases.entries()) {
        const id = `p${index}`;
        await ctx.store.importPlan(plan(id, [{ ...routed("T"), ...defined(c.task) }], defined(c.plan)));
        const claimed = await claimWith(ctx.store, "w", all, c.run, id);
        const expected = chooseAgent({
          force: { agent: c.run.forceAgent, model: c.run.forceModel },
          task: c.task,
          plan: c.plan,
          run: { agent: c.run.agent, model: c.run.model },
        });
        expect({ index, choice: claimed?.choice }).toEqual({ index, choice: expected });
      }
    });

    it("writes agent and model into the CLAIM and START events' detail", async () => {
      await ctx.store.importPlan(plan("p", [routed("A", { agent: "codex", model: "gpt-5" })]));
      await claimWith(ctx.store, "w", { agents: ["codex"], tags: [] });
      const events = await ctx.store.listEvents("p");
      const of = (type: string) => events.find((e) => e.eventType === type)?.detail;
      expect(of("CLAIM")).toEqual({ agent: "codex", model: "gpt-5" });
      expect(of("START")).toEqual({ agent: "codex", model: "gpt-5" });
    });

    it("keeps the worker's capabilities on its row as it last claimed with them", async () => {
      await ctx.store.importPlan(plan("p", [routed("A")]));
      await ctx.store.upsertWorker({ workerId: "w", hostname: "h" });
      expect((await ctx.store.listWorkers())[0]?.capabilities).toBeUndefined();
      await claimWith(
        ctx.store,
        "w",
        { agents: ["codex", "claude", "codex"], tags: ["gpu"] },
        { agent: "codex" },
      );
      expect((await ctx.store.listWorkers())[0]?.capabilities).toEqual({
        agents: ["claude", "codex"],
        tags: ["gpu"],
        agent: "codex",
      });
      await claimWith(ctx.store, "w", undefined);
      expect((await ctx.store.listWorkers())[0]?.capabilities).toEqual({ agents: ["claude"], tags: [] });
    });

    it("a rate-limited release moves the task along the plan's fallback_agents; a reset clears it", async () => {
      await ctx.store.importPlan(
        plan("p", [routed("A", { agent: "claude" })], { fallbackAgents: ["claude", "codex", "gemini"] }),
      );
      const all = { agents: ["claude", "codex", "gemini"], tags: [] };
      const release = async (agent?: string) => {
        const claimed = await claimWith(ctx.store, "w", all);
        if (!claimed) throw new Error("nothing claimed");
        return ctx.store.release({
          planId: "p",
          taskId: "A",
          workerId: "w",
          version: claimed.version,
          reason: "rate_limited",
          agent,
        });
      };
      expect((await release()).fallbackAgent).toBe("codex");
      expect((await claimWith(ctx.store, "x", { agents: ["claude"], tags: [] }))?.id).toBeUndefined();
      expect((await release("codex")).fallbackAgent).toBe("gemini");
      // None left: the task stays on its last fallback and waits for the limit to pass.
      expect((await release("gemini")).fallbackAgent).toBe("gemini");
      const details = (await ctx.store.listEvents("p"))
        .filter((e) => e.eventType === "RELEASE")
        .map((e) => e.detail ?? null);
      expect(details).toEqual([
        { agent: "claude", fallback_agent: "codex" },
        { agent: "codex", fallback_agent: "gemini" },
        null,
      ]);
      await ctx.store.resetPlan("p", "keep_tasks");
      expect((await ctx.store.getTask("p", "A"))?.fallbackAgent).toBeUndefined();
    });

    it("a release for another reason, or in a plan without fallback_agents, keeps the task's agent", async () => {
      await ctx.store.importPlan(plan("p", [routed("A", { agent: "codex" })]));
      const claimed = await claimWith(ctx.store, "w", { agents: ["codex"], tags: [] });
      const fence = { planId: "p", taskId: "A", workerId: "w", version: claimed?.version ?? -1 };
      const released = await ctx.store.release({ ...fence, reason: "rate_limited", agent: "codex" });
      expect(released.fallbackAgent).toBeUndefined();
    });

    it("reports ready tasks no online worker can run, and what they wait for", async () => {
      await ctx.store.importPlan(
        plan("p", [
          routed("A", { agent: "codex" }),
          routed("B", { requiredTags: ["gpu"] }),
          routed("C", { agent: "codex", requiredTags: ["gpu"] }),
          routed("D"),
          { ...routed("E", { requiredTags: ["tpu"] }), dependencies: ["D"] },
        ]),
      );
      // No worker at all: tasks wait for a worker, not for a capability.
      expect(await ctx.store.listWaiting("p", { onlineWithinMs: 60_000 })).toEqual([]);
      // A worker that never claimed counts as an older one: claude, no tags.
      await ctx.store.upsertWorker({ workerId: "old", hostname: "h" });
      expect((await ctx.store.listWaiting("p", { onlineWithinMs: 60_000 })).map((w) => w.taskId)).toEqual([
        "A",
        "B",
        "C",
      ]);
      // Given capabilities count too; the pieces missing are what no worker has.
      const waiting = await ctx.store.listWaiting("p", {
        onlineWithinMs: 60_000,
        capabilities: [{ agents: ["codex"], tags: [] }],
      });
      expect(waiting).toEqual([
        { taskId: "B", waitingFor: { tags: ["gpu"] } },
        { taskId: "C", waitingFor: { tags: ["gpu"] } },
      ]);
      // Each piece somewhere but not together: the whole requirement.
      const apart = await ctx.store.listWaiting("p", {
        capabilities: [
          { agents: ["codex"], tags: [] },
          { agents: ["claude"], tags: ["gpu"] },
        ],
      });
      expect(apart).toEqual([{ taskId: "C", waitingFor: { agent: "codex", tags: ["gpu"] } }]);
      // A worker silent for longer than the window does not count.
      const silent = await ctx.store.listWaiting("p", {
        onlineWithinMs: 0,
        capabilities: [{ agents: ["gemini"], tags: [] }],
      });
      expect(silent.map((w) => w.taskId)).toEqual(["A", "B", "C", "D"]);
      expect(silent[1]).toEqual({ taskId: "B", waitingFor: { agent: "claude", tags: ["gpu"] } });
    });
  });
}
