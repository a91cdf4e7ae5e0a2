import { existsSync } from "node:fs";
import type { FakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll } from "../support/cli.js";
import {
  agentRequests,
  bash,
  COMPLETE,
  commitFiles,
  eventsOfTask,
  fileAt,
  recordsOf,
  repoFrom,
  runPlan,
  startFake,
  write,
  writePlan,
} from "./attempts-support.js";

// DONE means whilly checked: the real Claude Code CLI against the scripted fake model, in a worktree per
// task, with whilly's checks deciding (docs/verification.md) and retries told what went wrong.
let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFake({
      tasks: {
        // Claims completion, writes nothing.
        "A-1": { turns: [COMPLETE] },
        // Writes the wrong thing first, the right thing when told what failed.
        "B-1": {
          attempts: [
            { turns: [write("B1.txt", "broken\n"), COMPLETE] },
            { turns: [write("B1.txt", "fixed\n"), COMPLETE] },
          ],
        },
        // Does its task, and breaks a file the plan's verify covers.
        // (Bash, as Write refuses a file the session has not read.)
        "C-1": { turns: [write("C1.txt", "c1\n"), bash("printf 'oops\\n' > lib.txt"), COMPLETE] },
      },
    }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly run decides DONE by its own checks", () => {
  it("fails an agent that claims completion but wrote nothing, after its attempts, with verification_failed", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "empty", [{ id: "A-1", test_steps: ["test -f A1.txt"] }]);
    const result = await runPlan(repo, fake, ["--max-attempts", "2"]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^A-1 +FAILED +2\/2 /m);
    expect(result.out).toContain("A-1 FAILED after 2 of 2 attempt(s)");
    const { tasks, events } = await recordsOf(repo, "empty");
    expect(tasks[0]).toMatchObject({ status: "FAILED", attempts: 2 });
    const fails = eventsOfTask(events, "A-1", "FAIL");
    expect(fails.map((e) => e.payload.reason)).toEqual(["verification_failed", "verification_failed"]);
    expect(fails.map((e) => e.payload.retry)).toEqual([true, false]);
    expect(fails[1]?.detail).toMatchObject({ agent_claimed: true });
    expect(tasks[0]?.lastFailure).toMatchObject({ reason: "verification_failed", step: "test -f A1.txt" });
    // The kept worktree is named, and there.
    const kept = /worktree kept at (\S+)/.exec(result.out)?.[1];
    expect(kept !== undefined && existsSync(kept)).toBe(true);
  }, 120_000);

  it("retries a task that failed its check, telling the agent the failing step's output, and ends DONE", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "retry", [{ id: "B-1", test_steps: ["cat B1.txt && grep -q fixed B1.txt"] }]);
    const result = await runPlan(repo, fake);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^B-1 +DONE +2\/3 /m);
    const { tasks, events } = await recordsOf(repo, "retry");
    expect(tasks[0]).toMatchObject({ status: "DONE", attempts: 2, verification: "passed" });
    expect(eventsOfTask(events, "B-1", "FAIL")[0]?.payload).toMatchObject({
      reason: "verification_failed",
      retry: true,
    });
    // Same worker, kept worktree: the retry continued there and resumed the agent's session.
    expect(eventsOfTask(events, "B-1", "COMPLETE")[0]?.detail).toMatchObject({ reused: true, resumed: true });
    // The retry's prompt held what failed: the step and its output.
    const retried = agentRequests(fake, "B-1").find((r) => r.attempt === 2);
    expect(retried?.prompt).toContain("cat B1.txt && grep -q fixed B1.txt");
    expect(retried?.prompt).toContain("broken");
    // The work reached the user's branch.
    expect(fileAt(repo, "main", "B1.txt")).toBe("fixed\n");
  }, 120_000);

  it("does not accept a task whose agent broke a file another check covers", async () => {
    const repo = repoFrom(template);
    commitFiles(repo, { "lib.txt": "keep\n" });
    writePlan(repo, "broken", [{ id: "C-1", test_steps: ["test -f C1.txt"] }], {
      verify: ["grep -q keep lib.txt"],
    });
    const result = await runPlan(repo, fake, ["--max-attempts", "1"]);
    expect(result.code).toBe(1);
    const { tasks, events } = await recordsOf(repo, "broken");
    expect(tasks[0]).toMatchObject({ status: "FAILED" });
    expect(eventsOfTask(events, "C-1", "FAIL")[0]?.payload).toMatchObject({ reason: "verification_failed" });
    expect(tasks[0]?.lastFailure).toMatchObject({ step: "grep -q keep lib.txt", exit_code: 1 });
    expect(fileAt(repo, "main", "lib.txt")).toBe("keep\n");
    expect(fileAt(repo, "main", "C1.txt")).toBeUndefined();
  }, 120_000);
});
