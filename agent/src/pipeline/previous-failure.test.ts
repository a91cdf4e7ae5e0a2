import { describe, expect, it } from "vitest";
import { mayReuse, previousFailureOf } from "./previous-failure.js";
import { taskPayload } from "./testing/fake-agent.js";

describe("previousFailureOf", () => {
  it("reads the claim's previous_failure, dropping fields of the wrong type", () => {
    const task = taskPayload("T", {
      attempts: 2,
      previous_failure: {
        reason: "verification_failed",
        step: 3,
        exit_code: null,
        manual_steps: ["a", 1],
        worker_id: "w1",
      },
    });
    expect(previousFailureOf(task)).toEqual({
      attempt: 1,
      reason: "verification_failed",
      exit_code: null,
      manual_steps: ["a"],
      worker_id: "w1",
    });
  });

  it("is undefined without a failure or a reason", () => {
    expect(previousFailureOf(taskPayload("T"))).toBeUndefined();
    expect(previousFailureOf(taskPayload("T", { previous_failure: null }))).toBeUndefined();
    expect(previousFailureOf(taskPayload("T", { previous_failure: { step: "x" } }))).toBeUndefined();
  });
});

describe("mayReuse", () => {
  const failure = (reason: string, worker_id = "w1") => ({ attempt: 1, reason, worker_id });
  it("reuses only on the worker that ran the attempt, and not after a conflict or a failed setup", () => {
    expect(mayReuse(failure("verification_failed"), "w1")).toBe(true);
    expect(mayReuse(failure("integration_failed"), "w1")).toBe(true);
    expect(mayReuse(failure("verification_failed", "w2"), "w1")).toBe(false);
    expect(mayReuse(failure("merge_conflict"), "w1")).toBe(false);
    expect(mayReuse(failure("setup_failed"), "w1")).toBe(false);
    expect(mayReuse(undefined, "w1")).toBe(false);
    expect(mayReuse(failure("verification_failed", "w2"), ["w1", "w2"])).toBe(true);
    expect(mayReuse({ attempt: 1, reason: "verification_failed" }, "w1")).toBe(false);
  });
});
