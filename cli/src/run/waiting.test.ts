import type { TaskRecord } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { idleVerdict } from "./waiting.js";

const NOW = Date.parse("2026-12-01T20:00:00Z");
const task = (id: string, fields: Partial<TaskRecord>): TaskRecord =>
  ({ id, status: "PENDING", ...fields }) as TaskRecord;

describe("idleVerdict", () => {
  it("waits while another worker (another slot too) holds a task, not for this slot's own", () => {
    const held = task("A", { status: "IN_PROGRESS", claimedBy: "w-2" });
    expect(idleVerdict([held], "w-1", NOW)).toEqual({ kind: "running" });
    expect(idleVerdict([held], "w-2", NOW)).toEqual({ kind: "done" });
    // A retry due meanwhile is named, so the slot wakes for it rather than at the next poll.
    const retry = task("B", { notBefore: new Date(NOW + 200) });
    expect(idleVerdict([held, retry], "w-1", NOW)).toEqual({
      kind: "running",
      nextRetry: new Date(NOW + 200),
    });
  });

  it("waits for the earliest retry still ahead, and not for one already due or a FAILED task", () => {
    const later = task("B", { notBefore: new Date(NOW + 60_000) });
    const sooner = task("C", { notBefore: new Date(NOW + 5_000) });
    const due = task("D", { notBefore: new Date(NOW - 1) });
    const failed = task("E", { status: "FAILED", notBefore: new Date(NOW + 1_000) });
    expect(idleVerdict([later, sooner, due, failed], "w-1", NOW)).toEqual({
      kind: "retry",
      until: new Date(NOW + 5_000),
      taskIds: ["B", "C"],
    });
    expect(idleVerdict([due, failed], "w-1", NOW)).toEqual({ kind: "done" });
  });
});
