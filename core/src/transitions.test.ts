import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTerminal, TASK_STATUSES, type TaskStatus } from "./task-status.js";
import { allowedFrom, canTransition, nextStatus, TRANSITION_TABLE, TRANSITIONS } from "./transitions.js";

describe("transition table", () => {
  it("has whilly 4.x's eleven edges, RETRY's two, REQUEUE's one and RESET from every status", () => {
    const legal = TRANSITIONS.flatMap((transition) =>
      TASK_STATUSES.filter((status) => canTransition(status, transition)).map(
        (status) => `${transition}:${status}`,
      ),
    );
    const added = ["RESET:", "RETRY:", "REQUEUE:"];
    expect(legal.filter((edge) => !added.some((prefix) => edge.startsWith(prefix)))).toHaveLength(11);
    expect(legal.filter((edge) => edge.startsWith("REQUEUE:"))).toEqual(["REQUEUE:FAILED"]);
    expect(legal.filter((edge) => edge.startsWith("RETRY:"))).toEqual(["RETRY:CLAIMED", "RETRY:IN_PROGRESS"]);
    expect(legal.filter((edge) => edge.startsWith("RESET:"))).toHaveLength(TASK_STATUSES.length);
  });

  it("gives terminal states no way out but RESET, and FAILED also REQUEUE", () => {
    for (const status of TASK_STATUSES.filter(isTerminal)) {
      for (const transition of TRANSITIONS) {
        const operator = transition === "RESET" || (transition === "REQUEUE" && status === "FAILED");
        expect(canTransition(status, transition)).toBe(operator);
      }
    }
  });

  it("derives allowedFrom and nextStatus from the one table", () => {
    for (const transition of TRANSITIONS) {
      expect(allowedFrom(transition)).toEqual(TRANSITION_TABLE[transition].from);
      for (const status of TASK_STATUSES) {
        const next = nextStatus(status, transition);
        expect(next).toBe(
          allowedFrom(transition).includes(status) ? TRANSITION_TABLE[transition].to : undefined,
        );
      }
    }
  });
});

describe("random transition sequences", () => {
  it("never reach a status outside the table and stop at terminal states until an operator's RESET", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TASK_STATUSES),
        fc.array(fc.constantFrom(...TRANSITIONS), { maxLength: 60 }),
        (start, sequence) => {
          let status: TaskStatus = start;
          for (const transition of sequence) {
            const next = nextStatus(status, transition);
            const operator = transition === "RESET" || transition === "REQUEUE";
            if (isTerminal(status) && !operator) expect(next).toBeUndefined();
            if (next === undefined) continue;
            expect(TASK_STATUSES).toContain(next);
            expect(TRANSITION_TABLE[transition].from).toContain(status);
            expect(next).toBe(TRANSITION_TABLE[transition].to);
            status = next;
          }
        },
      ),
    );
  });

  it("only ever reaches DONE from a claimed or running task", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TRANSITIONS), { maxLength: 60 }), (sequence) => {
        let status: TaskStatus = "PENDING";
        for (const transition of sequence) {
          const next = nextStatus(status, transition);
          if (next === "DONE") expect(["CLAIMED", "IN_PROGRESS"]).toContain(status);
          status = next ?? status;
        }
      }),
    );
  });
});
