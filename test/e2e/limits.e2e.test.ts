import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, processGone, removeAll, scratchDir } from "../support/cli.js";
import {
  bash,
  COMPLETE,
  eventsOfTask,
  recordsOf,
  repoFrom,
  runPlan,
  startFake,
  write,
  writePlan,
} from "./attempts-support.js";

// Provider limits and hung agents with the real Claude Code CLI against the scripted fake model: a 429
// storm pauses the worker without using an attempt; a hang is ended, with everything it started.
let template: string;
let fake: FakeAnthropic;
const scratch = scratchDir("whilly-limits-");
/** Where the hanging agent's background process writes its pid. */
const sleeperPid = join(scratch, "sleeper.pid");

beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFake({
      tasks: {
        // Every request fails with 429 for 2.5 s from the first one, then the story plays.
        "E-1": { fault: { status: 429, for_ms: 2500 }, turns: [write("E1.txt", "e1\n"), COMPLETE] },
        // Starts a process that would outlive it, then never answers again.
        "F-1": {
          turns: [bash(`sleep 300 > /dev/null 2>&1 & echo $! > ${sleeperPid}`), { fault: "hang" }],
        },
      },
    }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly run meets limits and hangs", () => {
  it("pauses on a 429 storm without using an attempt, and the task is DONE after the pause", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "storm", [{ id: "E-1", test_steps: ["grep -q e1 E1.txt"] }]);
    const result = await runPlan(repo, fake, ["--max-attempts", "1"], { WHILLY_LIMIT_BACKOFF: "1500ms" });
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/⏸ provider limit on E-1 \(.+\); no new task before \d\d:\d\d:\d\d/);
    const { tasks, events } = await recordsOf(repo, "storm");
    // One attempt allowed, and it was enough: the limited ones were given back.
    expect(tasks[0]).toMatchObject({ status: "DONE", attempts: 1 });
    const releases = eventsOfTask(events, "E-1", "RELEASE");
    expect(releases.length).toBeGreaterThan(0);
    expect(releases.every((e) => e.payload.reason === "rate_limited")).toBe(true);
    const paused = events.filter((e) => e.eventType === "worker.paused");
    expect(paused[0]?.payload).toMatchObject({ reason: "rate_limited" });
    expect(eventsOfTask(events, "E-1", "FAIL")).toEqual([]);
  }, 120_000);

  it("ends an agent that stalls, and every process it started, then fails the task as stalled", async () => {
    const repo = repoFrom(template);
    // No runnable check: the agent's stall decides. The stall timeout leaves room for a loaded machine's start-up.
    writePlan(repo, "stuck", [{ id: "F-1", test_steps: ["manual: look at it"] }]);
    const result = await runPlan(repo, fake, ["--max-attempts", "1", "--stall-timeout", "8s"]);
    expect(result.code).toBe(1);
    const { tasks, events } = await recordsOf(repo, "stuck");
    expect(tasks[0]).toMatchObject({ status: "FAILED", attempts: 1 });
    expect(eventsOfTask(events, "F-1", "FAIL")[0]?.payload).toMatchObject({ reason: "stalled" });
    const pid = Number(readFileSync(sleeperPid, "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(processGone(pid)).toBe(true);
  }, 120_000);
});
