import type { AgentAttempt } from "@whilly/agent";
import type { TaskPayload } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { Io } from "../io.js";
import { clockTime, progressPrinter } from "./progress.js";

const task = (id: string, attempts = 1): TaskPayload => ({
  plan_id: "p",
  id,
  status: "IN_PROGRESS",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 2,
  attempts,
  claimed_by: "w",
  lease_expires_at: null,
});
const failed: AgentAttempt = {
  ok: false,
  reason: "verification_failed",
  costMicroUsd: 10_000,
  aborted: false,
  detail: {},
};

function printer(total: number) {
  let err = "";
  const io: Io = { out: { write: () => {} }, err: { write: (t: string) => (err += t) }, env: {}, cwd: "/" };
  return { ...progressPrinter(io, total), err: () => err };
}

describe("progress lines", () => {
  it("keep what each running task does for its own running lines", () => {
    const p = printer(2);
    p.onEvent({ kind: "started", task: task("A") });
    p.onEvent({ kind: "started", task: task("B") });
    p.onEvent({
      kind: "activity",
      task: task("A"),
      progress: { phase: "agent", turns: 4, last_tool: "Edit" },
    });
    p.onEvent({ kind: "activity", task: task("B"), progress: { phase: "verify" } });
    p.onEvent({ kind: "running", task: task("A"), elapsedMs: 90_000 });
    p.onEvent({ kind: "running", task: task("B"), elapsedMs: 1000 });
    expect(p.err()).toContain("[0/2] … A running 1m30s · agent · turn 4 · Edit\n");
    expect(p.err()).toContain("[0/2] … B running 1.0s · verify\n");
  });

  it("count a task once, when its last attempt ends, and say when a failed one is retried", () => {
    const p = printer(1);
    const notBefore = new Date(Date.now() + 5 * 60_000);
    const retry = { retry: true, notBefore };
    p.onEvent({ kind: "finished", task: task("A", 1), attempt: failed, elapsedMs: 955, ...retry });
    p.onEvent({ kind: "finished", task: task("A", 2), attempt: failed, elapsedMs: 1000 });
    // The attempt's duration is not the wait: the retry's time is the task's not-before.
    expect(p.err()).toContain(
      `[0/1] ✗ A attempt 1 failed after 955ms (verification_failed); retry at ${clockTime(notBefore)} · $0.01\n`,
    );
    expect(p.err()).toContain("[1/1] ✗ A FAILED (verification_failed) in 1.0s · $0.01\n");
  });

  it("say in one line until when a provider limit pauses claims", () => {
    const p = printer(1);
    const until = new Date(Date.now() + 60_000);
    p.onEvent({ kind: "paused", task: task("A"), until, message: "Request rejected (429)" });
    expect(p.err()).toBe(
      `[0/1] ⏸ provider limit on A (Request rejected (429)); no new task before ${clockTime(until)}, then A runs again\n`,
    );
  });

  it("clockTime names the zone's offset, and the date for another day", () => {
    const at = new Date(2026, 11, 1, 20, 5, 9);
    expect(clockTime(at, new Date(2026, 11, 1, 8))).toMatch(/^20:05:09 \(UTC[+-]\d\d:\d\d\)$/);
    expect(clockTime(at, new Date(2026, 10, 30, 8))).toMatch(/^2026-12-01 20:05:09 \(UTC[+-]\d\d:\d\d\)$/);
  });
});
