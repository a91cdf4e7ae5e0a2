import { VersionConflict } from "@whilly/core";
import type { EventView } from "../events/event-view.js";
import {
  type DashboardSnapshot,
  type DashboardState,
  EMPTY_STATE,
  reduceEvent,
  reduceSnapshot,
} from "./model.js";
import type { DashboardSource } from "./sources.js";

/**
 * What the dashboard can change, each checked and done by the store or the control plane (admin
 * credential). Each rejects with an error whose message the status line shows.
 */
export interface ControlActions {
  /** FAILED -> PENDING. */
  resetTask(planId: string, taskId: string): Promise<void>;
  /** CLAIMED or IN_PROGRESS -> PENDING. */
  releaseTask(planId: string, taskId: string): Promise<void>;
  pauseWorkers(): Promise<void>;
  resumeWorkers(): Promise<void>;
}

/** An action the operator picks, on the selected task for the first two. */
export type ActionName = "reset" | "release" | "pauseWorkers" | "resumeWorkers";

/**
 * Keeps the dashboard's state: reads a snapshot every `refreshMs` (and on {@link refresh}), applies
 * the plan's events as they come, runs actions, and tells subscribers when the view changed. While
 * paused the view stays as it was; the state underneath keeps up, so resuming shows the present.
 */
export class DashboardController {
  private state: DashboardState = EMPTY_STATE;
  private frozen: { state: DashboardState; at: number } | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly stopped = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private version = 0;
  /** The status line: the last action's outcome or a read error. */
  status = "";

  constructor(
    readonly source: DashboardSource,
    readonly planId: string,
    readonly refreshMs: number,
    readonly actions: ControlActions | undefined,
  ) {}

  /** What the view shows now. */
  view(): DashboardState {
    return this.frozen?.state ?? this.state;
  }

  /** The time the view shows (ms since the epoch): now, or when it was paused. */
  viewTime(): number {
    return this.frozen?.at ?? Date.now();
  }

  /** Changes whenever the view may have changed (for React's `useSyncExternalStore`). */
  snapshotVersion(): number {
    return this.version;
  }

  get paused(): boolean {
    return this.frozen !== undefined;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the first snapshot, then keeps reading: the events (following when `follow`) and a snapshot
   * every `refreshMs`. @throws what the first read throws (an unknown plan, a refused token).
   */
  async start(follow: boolean): Promise<void> {
    this.takeSnapshot(await this.source.snapshot(this.planId));
    const events = this.source
      .events(this.planId, (event) => this.applyEvent(event), follow, this.stopped.signal)
      .catch((error: unknown) => this.say(`events: ${message(error)}`));
    if (!follow) {
      await events;
      return;
    }
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
  }

  /** Reads a snapshot now; a failure goes to the status line. */
  async refresh(): Promise<void> {
    try {
      this.takeSnapshot(await this.source.snapshot(this.planId));
      if (this.status.startsWith("read: ")) this.status = "";
    } catch (error) {
      this.status = `read: ${message(error)}`;
    }
    this.changed();
  }

  /** Freezes the view, or shows the present again. */
  togglePause(): void {
    this.frozen = this.frozen === undefined ? { state: this.state, at: Date.now() } : undefined;
    this.changed();
  }

  /** Runs an action (confirmed by the caller); its outcome or error goes to the status line. */
  async act(name: ActionName, taskId?: string): Promise<void> {
    const actions = this.actions;
    if (!actions) return this.say("actions are not available here");
    try {
      if (name === "reset" && taskId) await actions.resetTask(this.planId, taskId);
      else if (name === "release" && taskId) await actions.releaseTask(this.planId, taskId);
      else if (name === "pauseWorkers") await actions.pauseWorkers();
      else if (name === "resumeWorkers") await actions.resumeWorkers();
      this.status = `${describeAction(name, taskId)}: done`;
    } catch (error) {
      this.status = `${describeAction(name, taskId)}: ${refusal(name, error)}`;
    }
    await this.refresh();
  }

  /** Shows `text` on the status line. */
  say(text: string): void {
    this.status = text;
    this.changed();
  }

  /** Stops reading. */
  stop(): void {
    clearInterval(this.timer);
    this.stopped.abort();
  }

  /**
   * Folds a snapshot into the state as it is now: never into a state read before the snapshot's
   * `await`, which would drop the events applied meanwhile.
   */
  private takeSnapshot(snapshot: DashboardSnapshot): void {
    this.state = reduceSnapshot(this.state, snapshot);
  }

  private applyEvent(event: EventView): void {
    this.state = reduceEvent(this.state, event);
    if (!this.frozen) this.changed();
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }
}

/** The words a confirmation and the status line use for an action. */
export function describeAction(name: ActionName, taskId?: string): string {
  switch (name) {
    case "reset":
      return `reset ${taskId} to PENDING`;
    case "release":
      return `release ${taskId} to PENDING`;
    case "pauseWorkers":
      return "pause all workers";
    case "resumeWorkers":
      return "resume all workers";
  }
}

/** Why an action was refused: a task in the wrong status named with the statuses it needs. */
function refusal(name: ActionName, error: unknown): string {
  if (error instanceof VersionConflict && error.actualStatus !== undefined) {
    const needed = name === "reset" ? "FAILED" : "CLAIMED or IN_PROGRESS";
    return `${error.taskId} is ${error.actualStatus}, not ${needed}`;
  }
  return message(error);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
