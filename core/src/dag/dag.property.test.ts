import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRIORITIES, type Priority, TASK_STATUSES, type TaskStatus } from "../task-status.js";
import { compareIds } from "./compare.js";
import { detectCycles } from "./cycles.js";
import { topologicalDepth } from "./depth.js";
import { blockedTasks, readyTasks } from "./readiness.js";

type Node = { id: string; dependencies: string[]; status: TaskStatus; priority: Priority };

/** A random DAG: task i may depend only on tasks before it, under shuffled, random-looking ids. */
const dag = fc
  .integer({ min: 1, max: 40 })
  .chain((n) =>
    fc.tuple(
      fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: n, maxLength: n }),
      fc.array(fc.array(fc.nat(), { maxLength: 5 }), { minLength: n, maxLength: n }),
      fc.array(fc.constantFrom(...PRIORITIES), { minLength: n, maxLength: n }),
    ),
  )
  .map(([ids, picks, priorities]) =>
    ids.map((id, i): Node => {
      const dependencies = i === 0 ? [] : [...new Set(picks[i]?.map((p) => ids[p % i] as string))];
      return { id, dependencies, status: "PENDING", priority: priorities[i] ?? "medium" };
    }),
  );

const edgeExists = (tasks: readonly Node[], from: string, to: string) =>
  tasks.find((task) => task.id === from)?.dependencies.includes(to) ?? false;

/** Each cycle is a closed walk along real edges from its smallest id; no task is in two cycles. */
function expectDisjointClosedWalks(tasks: readonly Node[], cycles: readonly (readonly string[])[]): void {
  const seen = new Set<string>();
  for (const cycle of cycles) {
    expect(cycle.length).toBeGreaterThanOrEqual(2);
    expect(cycle[cycle.length - 1]).toBe(cycle[0]);
    expect([...cycle].sort(compareIds)[0]).toBe(cycle[0]);
    for (let i = 1; i < cycle.length; i++) {
      expect(edgeExists(tasks, cycle[i - 1] as string, cycle[i] as string)).toBe(true);
    }
    for (const id of new Set(cycle)) {
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
  }
}

/** Blockage by its definition, recursively: the oracle for {@link blockedTasks}. */
function expectedBlocked(tasks: readonly Node[]): { taskId: string; blockedBy: string[] }[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const roots = (id: string): Set<string> => {
    const found = new Set<string>();
    for (const dep of byId.get(id)?.dependencies ?? []) {
      const status = byId.get(dep)?.status;
      if (status === "FAILED" || status === "SKIPPED") found.add(dep);
      else if (status === "PENDING") for (const root of roots(dep)) found.add(root);
    }
    return found;
  };
  return tasks
    .filter((task) => task.status === "PENDING")
    .map((task) => ({ taskId: task.id, blockedBy: [...roots(task.id)].sort(compareIds) }))
    .filter((entry) => entry.blockedBy.length > 0)
    .sort((a, b) => compareIds(a.taskId, b.taskId));
}

describe("DAG properties", () => {
  it("never deadlocks: completing ready tasks, in any order, finishes every task", () => {
    fc.assert(
      fc.property(dag, fc.infiniteStream(fc.nat()), (tasks, choices) => {
        const status = new Map(tasks.map((task) => [task.id, task.status]));
        for (let step = 0; step < tasks.length; step++) {
          const current = tasks.map((task) => ({ ...task, status: status.get(task.id) as TaskStatus }));
          const ready = readyTasks(current);
          expect(ready.length).toBeGreaterThan(0);
          const pick = ready[(choices.next().value as number) % ready.length] as Node;
          for (const dep of pick.dependencies) expect(status.get(dep)).toBe("DONE");
          status.set(pick.id, "DONE");
        }
        expect([...status.values()].every((s) => s === "DONE")).toBe(true);
      }),
    );
  });

  it("orders ready tasks by priority, then id", () => {
    fc.assert(
      fc.property(dag, (tasks) => {
        const ready = readyTasks(tasks);
        for (let i = 1; i < ready.length; i++) {
          const a = ready[i - 1] as Node;
          const b = ready[i] as Node;
          const byPriority = PRIORITIES.indexOf(a.priority) - PRIORITIES.indexOf(b.priority);
          expect(byPriority < 0 || (byPriority === 0 && compareIds(a.id, b.id) < 0)).toBe(true);
        }
      }),
    );
  });

  it("finds no cycle in a DAG", () => {
    fc.assert(
      fc.property(dag, (tasks) => {
        expect(detectCycles(tasks)).toEqual([]);
      }),
    );
  });

  it("always reports an injected cycle, as closed walks along real edges", () => {
    const withCycle = dag.chain((tasks) =>
      fc.tuple(
        fc.constant(tasks),
        fc.shuffledSubarray(
          tasks.map((task) => task.id),
          { minLength: 1 },
        ),
      ),
    );
    fc.assert(
      fc.property(withCycle, ([base, ring]) => {
        const tasks = base.map((task) => ({ ...task, dependencies: [...task.dependencies] }));
        ring.forEach((id, i) => {
          const task = tasks.find((candidate) => candidate.id === id) as Node;
          const next = ring[(i + 1) % ring.length] as string;
          if (!task.dependencies.includes(next)) task.dependencies.push(next);
        });
        const cycles = detectCycles(tasks);
        const reported = cycles.flat();
        for (const id of ring) expect(reported).toContain(id);
        const starts = cycles.map((cycle) => cycle[0] as string);
        expect([...starts].sort(compareIds)).toEqual(starts);
        expectDisjointClosedWalks(tasks, cycles);
      }),
    );
  });

  it("gives every task a depth one more than its deepest dependency, roots 0", () => {
    fc.assert(
      fc.property(dag, (tasks) => {
        const depth = topologicalDepth(tasks);
        expect(depth.size).toBe(tasks.length);
        for (const task of tasks) {
          const below = task.dependencies.map((dep) => depth.get(dep) as number);
          for (const d of below) expect(depth.get(task.id)).toBeGreaterThan(d);
          expect(depth.get(task.id)).toBe(below.length === 0 ? 0 : Math.max(...below) + 1);
        }
      }),
    );
  });

  it("blocks exactly the PENDING tasks with a failed or skipped root below a PENDING chain", () => {
    const withStatuses = dag.chain((tasks) =>
      fc
        .array(fc.constantFrom(...TASK_STATUSES), { minLength: tasks.length, maxLength: tasks.length })
        .map((statuses) => tasks.map((task, i) => ({ ...task, status: statuses[i] as TaskStatus }))),
    );
    fc.assert(
      fc.property(withStatuses, (tasks) => {
        expect(blockedTasks(tasks)).toEqual(expectedBlocked(tasks));
      }),
    );
  });
});
