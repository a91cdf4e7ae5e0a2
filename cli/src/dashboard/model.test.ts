import { describe, expect, it } from "vitest";
import type { EventView } from "../events/event-view.js";
import { fitMiddle, taskColumns } from "./format.js";
import { pressKey, START_UI, type UiState } from "./keys.js";
import { EMPTY_STATE, filterTasks, reduceEvent, reduceSnapshot, type SnapshotTask } from "./model.js";
import { dashboardText } from "./text.js";

// The dashboard's state is a pure function of snapshots and events; its keys a pure function of the
// view's state.

const task = (id: string, status = "PENDING", extra: Partial<SnapshotTask> = {}): SnapshotTask => ({
  id,
  status,
  priority: "high",
  description: `do ${id}`,
  claimedBy: null,
  attempts: 0,
  version: 0,
  ...extra,
});
const plan = { id: "p", name: "demo", budgetMicroUsd: 5_000_000, spentMicroUsd: 0 };
let nextId = 1;
const event = (
  event_type: string,
  task_id: string | null,
  payload: EventView["payload"] = {},
): EventView => ({
  id: nextId++,
  plan_id: "p",
  task_id,
  worker_id: typeof payload.worker_id === "string" ? payload.worker_id : null,
  event_type,
  payload,
  detail: null,
  created_at: `2026-01-01T00:00:0${nextId % 10}.000Z`,
});

describe("the dashboard's reducer", () => {
  it("follows a task through claim, heartbeat, completion and a failed retry from the events alone", () => {
    let state = reduceSnapshot(EMPTY_STATE, { plan, tasks: [task("A"), task("B")] });
    state = reduceEvent(state, event("CLAIM", "A", { worker_id: "w-1", version: 2 }));
    state = reduceEvent(state, event("START", "A", { version: 3 }));
    const progress = { phase: "agent", last_tool: "Edit", turns: 4 };
    state = reduceEvent(state, event("worker.heartbeat", "A", { worker_id: "w-1", progress }));
    expect(state.tasks[0]).toMatchObject({ status: "IN_PROGRESS", claimedBy: "w-1", attempts: 1, progress });
    expect(state.workers).toEqual([{ id: "w-1", lastSeen: expect.any(String), task: "A" }]);

    state = reduceEvent(
      state,
      event("COMPLETE", "A", { worker_id: "w-1", cost_usd: "0.120000", version: 4 }),
    );
    expect(state.tasks[0]).toMatchObject({ status: "DONE", claimedBy: null, spentFromEvents: 120_000 });
    expect(state.workers[0]?.task).toBeNull();

    state = reduceEvent(state, event("CLAIM", "B", { worker_id: "w-1", version: 1 }));
    state = reduceEvent(
      state,
      event("FAIL", "B", { worker_id: "w-1", cost_usd: "0.01", retry: true, version: 2 }),
    );
    expect(state.tasks[1]?.status).toBe("PENDING");
    state = reduceEvent(state, event("FAIL", "B", { worker_id: "w-1", retry: false, version: 3 }));
    expect(state.tasks[1]?.status).toBe("FAILED");
    state = reduceEvent(state, event("RESET", "B", { version: 4 }));
    expect(state.tasks[1]?.status).toBe("PENDING");

    // A replayed event (a stream reconnect) changes nothing; the view keeps the latest events.
    const replay = state.events[0] as EventView;
    expect(reduceEvent(state, replay)).toBe(state);
    expect(state.events.map((e) => e.event_type).slice(-2)).toEqual(["FAIL", "RESET"]);
  });

  it("takes a snapshot's figures over the events' and keeps what only the events told", () => {
    let state = reduceSnapshot(EMPTY_STATE, { plan, tasks: [task("A")] });
    state = reduceEvent(state, event("CLAIM", "A", { worker_id: "w-2", version: 1 }));
    const claimedAt = state.tasks[0]?.claimedAt;
    // A read API snapshot has no claim time: the event's stays.
    state = reduceSnapshot(state, {
      plan,
      tasks: [task("A", "IN_PROGRESS", { claimedBy: "w-2", attempts: 1, version: 2 })],
    });
    expect(state.tasks[0]).toMatchObject({ status: "IN_PROGRESS", claimedAt });
    state = reduceSnapshot(state, {
      plan: { ...plan, spentMicroUsd: 300_000 },
      tasks: [task("A", "DONE", { spentMicroUsd: 300_000, version: 3 })],
      workers: [{ id: "w-2", lastHeartbeat: "2026-01-01T00:01:00.000Z", online: true }],
    });
    expect(state.tasks[0]).toMatchObject({ status: "DONE", claimedAt: null });
    expect(state.workers[0]).toEqual({ id: "w-2", lastSeen: "2026-01-01T00:01:00.000Z", task: null });

    const text = dashboardText(state, Date.parse("2026-01-01T00:01:05Z"));
    expect(text).toMatch(/^A {13}DONE {8}- {13}0 {3}- {7}\$0\.30 {5}- {21}do A$/m);
    expect(text).toContain("$0.30 of $5.00 spent, $4.70 left");
    expect(text).toContain("w-2  idle  heard 5s ago");
  });

  it("shows a source's claim time, spend, progress, workers and pause without any event", () => {
    const progress = { phase: "agent", last_tool: "Edit", turns: 7 };
    const running = task("A", "IN_PROGRESS", {
      claimedBy: "w-3",
      attempts: 1,
      claimedAt: "2026-01-01T00:00:00.000Z",
      spentMicroUsd: 40_000,
      progress,
    });
    const workers = [
      { id: "w-3", lastHeartbeat: "2026-01-01T00:02:00.000Z", online: true },
      { id: "w-4", lastHeartbeat: "2026-01-01T00:00:30.000Z", online: false },
    ];
    let state = reduceSnapshot(EMPTY_STATE, { plan, tasks: [running], workers, workersPaused: true });
    expect(state.workers).toEqual([{ id: "w-3", lastSeen: "2026-01-01T00:02:00.000Z", task: "A" }]);
    expect(state.workersPaused).toBe(true);
    const text = dashboardText(state, Date.parse("2026-01-01T00:02:05Z"));
    expect(text.split("\n")[0]).toMatch(/^plan p \(demo\) {2}2026-01-01T00:02:05Z {2}workers paused$/);
    expect(text).toMatch(/^A +IN_PROGRESS +w-3 +1 +2m05s +\$0\.04 +agent Edit t7 +do A$/m);
    expect(text).toContain("w-3  A  heard 5s ago");

    // A source that does not say keeps the pause as last told; one that says not paused clears it.
    state = reduceSnapshot(state, { plan, tasks: [running] });
    expect(state.workersPaused).toBe(true);
    state = reduceSnapshot(state, { plan, tasks: [running], workersPaused: false });
    expect(dashboardText(state, Date.parse("2026-01-01T00:02:05Z"))).not.toContain("workers paused");
  });

  it("de-duplicates events by id, also when the stream's ids step back", () => {
    let state = reduceSnapshot(EMPTY_STATE, { plan, tasks: [task("A"), task("B")] });
    // (xid, id) order: an older transaction's later id (9) before a newer one's earlier id (8).
    const later = { ...event("CLAIM", "A", { worker_id: "w-1", version: 1 }), id: 9 };
    const earlier = { ...event("CLAIM", "B", { worker_id: "w-2", version: 1 }), id: 8 };
    state = reduceEvent(reduceEvent(state, later), earlier);
    expect(state.tasks.map((t) => [t.id, t.status, t.claimedBy])).toEqual([
      ["A", "CLAIMED", "w-1"],
      ["B", "CLAIMED", "w-2"],
    ]);
    expect(state.events.map((e) => e.id)).toEqual([9, 8]);
    expect(reduceEvent(state, earlier)).toBe(state);
    expect(reduceEvent(state, later)).toBe(state);
  });

  it("takes a snapshot's task fields as they are and applies only the events newer than it", () => {
    // The log replayed from its start onto a snapshot that already counts it (--once, --connect).
    const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
    const log = (id: number, type: string, s: number, payload: EventView["payload"]): EventView => ({
      ...event(type, "A", payload),
      id,
      worker_id: typeof payload.worker_id === "string" ? payload.worker_id : null,
      created_at: at(s),
    });
    const progress = { phase: "agent", turns: 2 };
    const replay = [
      log(1, "CLAIM", 1, { worker_id: "w-1", version: 1 }),
      log(2, "START", 2, { version: 2 }),
      log(3, "worker.heartbeat", 3, { worker_id: "w-1", progress: { phase: "old" } }),
      log(4, "FAIL", 4, { worker_id: "w-1", retry: true, cost_usd: "0.015", version: 3 }),
      log(5, "CLAIM", 5, { worker_id: "w-1", version: 4 }),
      log(6, "START", 6, { version: 5 }),
      log(7, "worker.heartbeat", 7, { worker_id: "w-1", progress }),
    ];
    // The read API's snapshot: status, holder, attempts and version, no claim time or spend.
    const running = task("A", "IN_PROGRESS", { claimedBy: "w-1", attempts: 2, version: 5 });
    let state = reduceSnapshot(EMPTY_STATE, { plan, tasks: [running] });
    for (const e of replay) state = reduceEvent(state, e);
    expect(state.tasks[0]).toMatchObject({
      status: "IN_PROGRESS",
      attempts: 2,
      version: 5,
      claimedAt: at(5),
      progress,
      spentFromEvents: 15_000,
    });
    // What happens after the snapshot still shows at once.
    state = reduceEvent(state, log(8, "FAIL", 8, { worker_id: "w-1", retry: true, version: 6 }));
    state = reduceEvent(state, log(9, "CLAIM", 9, { worker_id: "w-2", version: 7 }));
    state = reduceEvent(state, log(10, "START", 10, { version: 8 }));
    expect(state.tasks[0]).toMatchObject({
      status: "IN_PROGRESS",
      claimedBy: "w-2",
      attempts: 3,
      claimedAt: at(9),
    });
    // A snapshot read before those events (it resolved late) does not take the view back.
    state = reduceSnapshot(state, { plan, tasks: [running] });
    expect(state.tasks[0]).toMatchObject({ claimedBy: "w-2", attempts: 3, version: 8 });
    // An operator's retry gives fresh attempts; a later snapshot is taken as it is.
    state = reduceEvent(state, log(11, "FAIL", 11, { worker_id: "w-2", retry: false, version: 9 }));
    state = reduceEvent(state, log(12, "RESET", 12, { reason: "retry_failed", version: 10 }));
    expect(state.tasks[0]).toMatchObject({ status: "PENDING", attempts: 0, claimedBy: null });
    state = reduceSnapshot(state, { plan, tasks: [task("A", "DONE", { attempts: 1, version: 13 })] });
    expect(state.tasks[0]).toMatchObject({ status: "DONE", attempts: 1, version: 13 });

    // The store's snapshot has every figure: the whole log replayed onto it changes none.
    const stored = task("A", "DONE", { attempts: 2, version: 6, spentMicroUsd: 105_000, claimedAt: null });
    let fromStore = reduceSnapshot(EMPTY_STATE, {
      plan: { ...plan, spentMicroUsd: 105_000 },
      tasks: [stored],
    });
    for (const e of replay) fromStore = reduceEvent(fromStore, e);
    expect(fromStore.tasks[0]).toMatchObject({
      status: "DONE",
      attempts: 2,
      claimedAt: null,
      progress: undefined,
    });
    const text = dashboardText(fromStore, Date.parse(at(30)));
    expect(text).toMatch(/^A +DONE +- +2 +- +\$0\.105 /m);
    expect(text).toContain("$0.105 of $5.00 spent, $4.895 left");
  });

  it("sizes the WORKER column to the longest worker id, and cuts one in the middle keeping the pid", () => {
    const id = "local-build-host-with-a-long-name-4242";
    const state = reduceSnapshot(EMPTY_STATE, {
      plan,
      tasks: [task("A", "IN_PROGRESS", { claimedBy: id, attempts: 1 }), task("B")],
    });
    const text = dashboardText(state, Date.parse("2026-01-01T00:00:10Z"));
    expect(text).toMatch(new RegExp(`^A +IN_PROGRESS +${id} +1 `, "m"));
    expect(text).toMatch(/^B +PENDING +- +0 /m);
    const narrow = taskColumns(state.tasks, 120);
    expect(narrow.reduce((sum, [, w]) => sum + w, 0)).toBeLessThanOrEqual(120 - 20);
    const worker = narrow.find(([name]) => name === "WORKER")?.[1] ?? 0;
    expect(fitMiddle(id, worker)).toMatch(/^local-.*…-4242 $/);
    expect(fitMiddle(id, worker)).toHaveLength(worker);
  });

  it("filters tasks by every word over id, status, worker and description", () => {
    const tasks = reduceSnapshot(EMPTY_STATE, {
      plan,
      tasks: [
        task("T-1", "FAILED"),
        task("T-2", "DONE"),
        task("X-3", "FAILED", { description: "Fix login" }),
      ],
    }).tasks;
    expect(filterTasks(tasks, "").map((t) => t.id)).toEqual(["T-1", "T-2", "X-3"]);
    expect(filterTasks(tasks, "failed").map((t) => t.id)).toEqual(["T-1", "X-3"]);
    expect(filterTasks(tasks, "failed LOGIN").map((t) => t.id)).toEqual(["X-3"]);
    expect(filterTasks(tasks, "nothing")).toEqual([]);
  });
});

describe("the dashboard's keys", () => {
  const statuses: Record<string, string> = { A: "FAILED", B: "FAILED", C: "IN_PROGRESS" };
  const ids = (filter: string) =>
    ["A", "B", "C"]
      .filter((id) => id.toLowerCase().includes(filter.toLowerCase()))
      .map((id) => ({ id, status: statuses[id] ?? "PENDING" }));
  const press = (keys: string[], ui: UiState = START_UI) => {
    const effects = [];
    for (const key of keys) {
      const next = pressKey(ui, key, ids);
      ui = next.ui;
      if (next.effect) effects.push(next.effect);
    }
    return { ui, effects };
  };

  it("moves, filters, and runs an action only after y", () => {
    expect(press(["j", "down", "j", "j"]).ui.selected).toBe(2);
    expect(press(["j", "k", "up"]).ui.selected).toBe(0);
    const filtered = press(["/", "b", "return"]);
    expect(filtered.ui).toMatchObject({ mode: { kind: "normal" }, filter: "b", selected: 0 });
    expect(press(["escape"], filtered.ui).ui.filter).toBe("");
    expect(press(["/", "b", "escape"]).ui.filter).toBe("");

    expect(press(["j", "x", "y"]).effects).toEqual([{ kind: "act", action: "reset", taskId: "B" }]);
    expect(press(["j", "j", "l", "n"]).effects).toEqual([
      { kind: "cancelled", action: "release", taskId: "C" },
    ]);
    expect(press(["P", "y", "U", "Y"]).effects).toEqual([
      { kind: "act", action: "pauseWorkers", taskId: undefined },
      { kind: "act", action: "resumeWorkers", taskId: undefined },
    ]);
    // Keys typed while a question waits answer it, and say they cancelled it; q then quits.
    expect(press(["x", "q", "q"]).effects).toEqual([
      { kind: "cancelled", action: "reset", taskId: "A", by: "q" },
      { kind: "quit" },
    ]);
    expect(press(["x", "escape"]).effects).toEqual([{ kind: "cancelled", action: "reset", taskId: "A" }]);
    expect(press(["r", "p"]).effects.map((e) => e.kind)).toEqual(["refresh", "togglePause"]);
    // An action the task's status can only refuse says so at once, without a question.
    expect(press(["j", "j", "x"])).toMatchObject({
      ui: { mode: { kind: "normal" } },
      effects: [{ kind: "say", text: "C is IN_PROGRESS; only a FAILED task can be reset" }],
    });
    expect(press(["l"]).effects).toEqual([
      { kind: "say", text: "A is FAILED; only a CLAIMED or IN_PROGRESS task can be released" },
    ]);
    expect(press(["/", "z", "return", "x"]).effects).toEqual([{ kind: "say", text: "no task selected" }]);
  });
});
