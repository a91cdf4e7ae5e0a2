import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll, scratchDir } from "../support/cli.js";
import {
  activeSpan,
  bash,
  COMPLETE,
  eventsOfTask,
  fileAt,
  recordsOf,
  repoFrom,
  runPlan,
  startFake,
  write,
  writePlan,
} from "./attempts-support.js";

// `whilly run --concurrency 2` with the real Claude Code CLI against the scripted fake model: tasks in
// worktrees of their own at the same time, key files never shared in flight, the work in one branch.
let template: string;
let fake: FakeAnthropic;
/** Where the two parallel agents leave word that they started; each waits for the other's. */
const meet = scratchDir("whilly-meet-");
/** Waits (up to 60 s) for the other agent's file: the task can only finish if both run at once. */
const waitFor = (file: string) =>
  bash(`for i in $(seq 600); do [ -f ${join(meet, file)} ] && exit 0; sleep 0.1; done; exit 1`);

beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFake({
      tasks: {
        "D-1": {
          turns: [bash(`touch ${join(meet, "D-1")}`), waitFor("D-2"), write("D1.txt", "d1\n"), COMPLETE],
        },
        "D-2": {
          turns: [bash(`touch ${join(meet, "D-2")}`), waitFor("D-1"), write("D2.txt", "d2\n"), COMPLETE],
        },
        "D-3": { turns: [bash("cat D1.txt D2.txt > D3.txt"), COMPLETE] },
        "G-1": { turns: [write("G1.txt", "g1\n"), { text: "Thinking.", delay_ms: 500 }, COMPLETE] },
        "G-2": { turns: [write("G2.txt", "g2\n"), { text: "Thinking.", delay_ms: 500 }, COMPLETE] },
      },
    }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly run --concurrency", () => {
  it("runs two independent tasks at once in separate worktrees, then the dependent on both results, and the user's branch ends with all three", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "together", [
      { id: "D-1", test_steps: ["grep -q d1 D1.txt"] },
      { id: "D-2", test_steps: ["grep -q d2 D2.txt"] },
      // Its worktree must hold both results for its check to pass.
      { id: "D-3", dependencies: ["D-1", "D-2"], test_steps: ["grep -q d1 D3.txt && grep -q d2 D3.txt"] },
    ]);
    const result = await runPlan(repo, fake, ["-j", "2"]);
    expect(result.err).not.toContain("error:");
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/2 workers local-/);
    const { tasks, events } = await recordsOf(repo, "together");
    expect(tasks.map((t) => [t.id, t.status, t.attempts, t.verification])).toEqual([
      ["D-1", "DONE", 1, "passed"],
      ["D-2", "DONE", 1, "passed"],
      ["D-3", "DONE", 1, "passed"],
    ]);
    // Two workers, two worktrees, agent runs overlapping in time.
    const complete = (id: string) => eventsOfTask(events, id, "COMPLETE")[0];
    expect(complete("D-1")?.payload.worker_id).not.toBe(complete("D-2")?.payload.worker_id);
    expect(complete("D-1")?.detail?.workspace).not.toBe(complete("D-2")?.detail?.workspace);
    const [one, two] = [activeSpan(fake, "D-1"), activeSpan(fake, "D-2")];
    expect(one.from).toBeLessThan(two.to);
    expect(two.from).toBeLessThan(one.to);
    // The user's branch was fast-forwarded to the plan's work; worktrees of DONE tasks are gone.
    expect(result.out).toContain("your branch now holds the work of whilly/together (fast-forwarded)");
    expect(fileAt(repo, "main", "D3.txt")).toBe("d1\nd2\n");
    for (const file of ["D1.txt", "D2.txt", "D3.txt"]) expect(existsSync(join(repo, file))).toBe(true);
    expect(existsSync(String(complete("D-1")?.detail?.workspace))).toBe(false);
  }, 180_000);

  it("never runs two tasks whose key_files overlap at the same time, with two claimers", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "keyed", [
      { id: "G-1", key_files: ["src/shared.ts"] },
      { id: "G-2", key_files: ["src/shared.ts", "src/other.ts"] },
    ]);
    const result = await runPlan(repo, fake, ["--concurrency", "2"]);
    expect(result.code).toBe(0);
    const { tasks, events } = await recordsOf(repo, "keyed");
    expect(tasks.map((t) => t.status)).toEqual(["DONE", "DONE"]);
    // One after the other: the second claimed only once the first was DONE, and their agents apart.
    const at = (type: string, id: string) => events.findIndex((e) => e.eventType === type && e.taskId === id);
    const [first, second] = at("CLAIM", "G-1") < at("CLAIM", "G-2") ? ["G-1", "G-2"] : ["G-2", "G-1"];
    expect(at("CLAIM", second)).toBeGreaterThan(at("COMPLETE", first));
    expect(activeSpan(fake, second).from).toBeGreaterThan(activeSpan(fake, first).to);
    expect(fileAt(repo, "main", "G1.txt")).toBe("g1\n");
    expect(fileAt(repo, "main", "G2.txt")).toBe("g2\n");
  }, 180_000);
});
