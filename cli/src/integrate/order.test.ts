import type { TaskRecord, TaskStatus } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { integrationQueue } from "./order.js";

const at = new Date("2026-12-01T00:00:00Z");
function task(id: string, status: TaskStatus, dependencies: string[] = []): TaskRecord {
  const work =
    status === "DONE" ? { branch: `whilly-tasks/p/${id}`, commit: id.repeat(40).slice(0, 40) } : undefined;
  return {
    id,
    planId: "p",
    status,
    priority: "medium",
    description: id,
    dependencies,
    keyFiles: [],
    acceptanceCriteria: [],
    testSteps: [],
    prdRequirement: "",
    version: 0,
    extra: {},
    claimedBy: undefined,
    claimedAt: undefined,
    leaseExpiresAt: undefined,
    attempts: 1,
    spentMicroUsd: 0,
    work,
    createdAt: at,
    updatedAt: at,
  };
}

describe("integrationQueue", () => {
  it("puts every DONE task after its dependencies, ties by id, and lists the others apart", () => {
    const queue = integrationQueue([
      task("e", "DONE", ["d", "b"]),
      task("d", "DONE", ["a"]),
      task("c", "DONE"),
      task("b", "DONE", ["a"]),
      task("a", "DONE"),
      task("f", "PENDING", ["e"]),
      task("g", "FAILED"),
    ]);
    expect(queue.done.map((t) => t.id)).toEqual(["a", "c", "b", "d", "e"]);
    expect(queue.done[0]?.work).toEqual({ branch: "whilly-tasks/p/a", commit: "a".repeat(40) });
    expect(queue.notDone).toEqual([
      { id: "f", status: "PENDING" },
      { id: "g", status: "FAILED" },
    ]);
  });
});
