import { describe, expect, it } from "vitest";
import type { AuditEvent, Task } from "../api/types.js";
import { addUsd, applyEvent, countStatuses, foldHeartbeats } from "./reduce.js";

const task: Task = {
  plan_id: "p",
  id: "T-1",
  status: "PENDING",
  priority: "high",
  description: "d",
  dependencies: [],
  version: 1,
  attempts: 0,
  claimed_by: null,
  claimed_at: null,
  spent_usd: "0.100000",
  progress: null,
  previous_failure: null,
  verification: null,
  branch: null,
  commit: null,
  agent: null,
  model: null,
  not_before: null,
};

let id = 0;
const event = (
  event_type: string,
  payload: Record<string, unknown> = {},
  detail: unknown = null,
): AuditEvent => ({
  id: ++id,
  plan_id: "p",
  task_id: "T-1",
  event_type,
  payload,
  detail,
  created_at: "2026-01-01T12:00:00.000Z",
  worker_id: typeof payload.worker_id === "string" ? payload.worker_id : null,
});

/** Applies events in order, keeping the task when one changes nothing. */
const run = (...events: AuditEvent[]) => events.reduce((t, e) => applyEvent(t, e) ?? t, task);

describe("applyEvent", () => {
  it("follows a claim, heartbeats and a completion the way the store moves the task", () => {
    const claimed = run(event("CLAIM", { worker_id: "w-1", version: 2 }, { agent: "claude", model: "opus" }));
    expect(claimed).toMatchObject({
      status: "CLAIMED",
      claimed_by: "w-1",
      attempts: 1,
      version: 2,
      agent: "claude",
    });
    const running = run(
      event("CLAIM", { worker_id: "w-1", version: 2 }),
      event("START", { version: 3 }),
      event("worker.heartbeat", { worker_id: "w-1", progress: { turns: 4, last_tool: "Edit" } }),
    );
    expect(running).toMatchObject({ status: "IN_PROGRESS", progress: { turns: 4, last_tool: "Edit" } });
    const done = applyEvent(running, event("COMPLETE", { version: 4, cost_usd: "0.200001" }));
    expect(done).toMatchObject({ status: "DONE", claimed_by: null, progress: null, spent_usd: "0.300001" });
  });

  it("sends a failure with attempts left back to PENDING and the last one to FAILED", () => {
    const claimed = run(event("CLAIM", { worker_id: "w-1" }));
    const retry = { reason: "verification_failed", retry: true, cost_usd: "0.05" };
    expect(applyEvent(claimed, event("FAIL", retry))).toMatchObject({
      status: "PENDING",
      previous_failure: { reason: "verification_failed" },
    });
    expect(applyEvent(claimed, event("FAIL", { ...retry, retry: false }))?.status).toBe("FAILED");
  });

  it("frees the task on release, reset and skip, and ignores what does not concern the table", () => {
    const claimed = run(event("CLAIM", { worker_id: "w-1" }));
    expect(applyEvent(claimed, event("RELEASE", { reason: "admin_release" }))).toMatchObject({
      status: "PENDING",
      claimed_by: null,
    });
    expect(applyEvent({ ...task, status: "FAILED", attempts: 3 }, event("RESET"))).toMatchObject({
      status: "PENDING",
      attempts: 0,
    });
    expect(applyEvent(task, event("task.skipped"))?.status).toBe("SKIPPED");
    expect(applyEvent(task, event("triz.error"))).toBeUndefined();
    expect(applyEvent(task, event("worker.heartbeat", { worker_id: "w-1" }))).toBeUndefined();
  });
});

describe("addUsd and countStatuses", () => {
  it("adds six-decimal amounts exactly and counts every status", () => {
    expect(addUsd("0.100000", "0.200000")).toBe("0.300000");
    expect(addUsd("1.000000", undefined)).toBe("1.000000");
    expect(countStatuses([task, { ...task, status: "DONE" }, { ...task, status: "DONE" }])).toEqual({
      PENDING: 1,
      CLAIMED: 0,
      IN_PROGRESS: 0,
      DONE: 2,
      FAILED: 0,
      SKIPPED: 0,
    });
  });
});

describe("foldHeartbeats", () => {
  it("keeps the latest heartbeat of each run and every other event", () => {
    const claim = event("CLAIM");
    const beats = [1, 2, 3].map((n) => event("worker.heartbeat", { n }));
    const start = event("START");
    const late = event("worker.heartbeat", { n: 4 });
    const listed = foldHeartbeats([claim, ...beats, start, late]);
    expect(listed.map((l) => [l.event.event_type, l.folded])).toEqual([
      ["CLAIM", 0],
      ["worker.heartbeat", 2],
      ["START", 0],
      ["worker.heartbeat", 0],
    ]);
    expect(listed[1]?.event).toBe(beats[2]);
  });
});
