import {
  type AttemptProgress,
  describeSystemError,
  describeUnexpected,
  displayUsd,
  EXIT,
  Forbidden,
  InvalidInput,
  TransportError,
  Unauthorized,
  WhillyError,
} from "@whilly/core";
import { describeTriz } from "../worker/triz-hook.js";
import type { ProgressEvent } from "../worker/types.js";
import type { WorkerIo } from "./io.js";

/** What the worker did, counted from the loop's progress events (so it is known even after an error). */
export type WorkerTally = {
  iterations: number;
  claimed: number;
  completed: number;
  failed: number;
  idlePolls: number;
  releasedOnShutdown: number;
  lost: number;
};

/**
 * One stderr line per step of the loop, prefixed `whilly-worker:`, the counters for the closing stats
 * line, and the line that says what a stop signal stops.
 */
export function progressReporter(io: WorkerIo) {
  const tally: WorkerTally = {
    iterations: 0,
    claimed: 0,
    completed: 0,
    failed: 0,
    idlePolls: 0,
    releasedOnShutdown: 0,
    lost: 0,
  };
  // The task in hand and whether its agent runs, so that a stop says what it stops.
  let inHand: { id: string; agentRunning: boolean } | undefined;
  const onEvent = (event: ProgressEvent): void => {
    count(tally, event);
    if (event.kind === "claimed") inHand = { id: event.task.id, agentRunning: false };
    else if (event.kind === "started") inHand = { id: event.task.id, agentRunning: true };
    else if (event.kind !== "running" && event.kind !== "activity" && "task" in event) inHand = undefined;
    // Activity comes about once a second; the heartbeat carries it to the control plane.
    if (event.kind === "activity") return;
    io.err.write(`whilly-worker: ${describeEvent(event)}\n`);
  };
  const onIdlePoll = () => {
    tally.iterations++;
    tally.idlePolls++;
  };
  /** Says that `signal` (e.g. `SIGTERM`) arrived and what stopping now does; a second one forces. */
  const onStop = (signal: string) => {
    const what =
      inHand === undefined
        ? "stopping (no task in hand; again to force)"
        : inHand.agentRunning
          ? `stopping the agent on ${inHand.id} and handing the task back (again to force)`
          : `handing ${inHand.id} back (again to force)`;
    io.err.write(`whilly-worker: ${signal} received; ${what}\n`);
  };
  return { tally, onEvent, onIdlePoll, onStop };
}

function count(tally: WorkerTally, event: ProgressEvent): void {
  if (event.kind === "claimed") {
    tally.iterations++;
    tally.claimed++;
  } else if (event.kind === "finished") {
    if (event.attempt.ok) tally.completed++;
    else tally.failed++;
  } else if (event.kind === "released" && event.reason === "shutdown") {
    tally.releasedOnShutdown++;
  } else if (event.kind === "lost") {
    tally.lost++;
  }
}

function describeEvent(event: ProgressEvent): string {
  switch (event.kind) {
    case "claimed":
      return `claimed ${event.task.id} (version ${event.task.version})`;
    case "started":
      return `${event.task.id} started, attempt ${event.task.attempts}`;
    case "running":
      return `${event.task.id} running for ${Math.round(event.elapsedMs / 1000)} s, attempt ${event.task.attempts}`;
    case "finished": {
      const { task, attempt } = event;
      const why = attempt.reason ?? "failed";
      const verdict = attempt.ok
        ? "DONE"
        : event.retry
          ? `failed (${why}), to be retried`
          : `FAILED (${why})`;
      const cost = displayUsd(attempt.costMicroUsd);
      return `${task.id} ${verdict} in ${(event.elapsedMs / 1000).toFixed(1)} s · ${cost}${ranOn(attempt.detail)}`;
    }
    case "released":
      return `${event.task.id} released (${event.reason})`;
    case "activity":
      return `${event.task.id} ${describeProgress(event.progress)}`;
    case "paused":
      if (event.agent !== undefined) {
        return `${event.task.id}: provider limit (${event.message}); no task for agent ${event.agent} until ${event.until.toISOString()}, the others go on`;
      }
      return `${event.task.id}: provider limit (${event.message}); not claiming until ${event.until.toISOString()}`;
    case "faulted":
      return `${event.task.id} handed back: ${event.message}; not claiming until ${event.until.toISOString()} (hint: ${event.hint})`;
    case "lost":
      return event.beforeStart
        ? `${event.task.id}: lease lost before the agent started (${event.error.message})`
        : `${event.task.id}: lease lost, result dropped (${event.error.message})`;
    case "release_failed":
      return `${event.task.id} not handed back (${event.error.message}); the control plane requeues it at the latest when its lease runs out`;
    case "retrying":
      return `${event.what} failed (${event.error.message}); retrying in ${event.delayMs} ms`;
    case "heartbeat_failed":
      return `heartbeat failed: ${event.error.message}`;
    case "triz":
      return `${event.task.id} failure analysis: ${describeTriz(event)}`;
  }
}

function describeProgress(progress: AttemptProgress): string {
  const parts = [
    progress.phase,
    progress.turns === undefined ? undefined : `turn ${progress.turns}`,
    progress.last_tool,
  ];
  return parts.filter((p) => p !== undefined).join(" · ");
}

/** The closing stats line (whilly 4.x's format, plus `lost`). */
export function statsLine(workerId: string, t: WorkerTally): string {
  return (
    `whilly-worker: worker '${workerId}' finished — iterations=${t.iterations} completed=${t.completed} ` +
    `failed=${t.failed} idle_polls=${t.idlePolls} released_on_shutdown=${t.releasedOnShutdown} lost=${t.lost}\n`
  );
}

/**
 * Prints an error that ended the worker as `error:` (and `hint:`) and returns the exit code: 2 for
 * usage, configuration and a refused worker token, 1 otherwise (a refused bootstrap token of
 * `register` included, as `whilly worker register` does). A refusal by the operating system (a full
 * disk, a path that is not a directory) is one line and a hint, as {@link describeSystemError} words
 * it. Anything else is a bug and prints its stack.
 * @param unreachableHint printed after a network error or 5xx, which the error itself has no hint for.
 */
export function reportWorkerError(
  io: Pick<WorkerIo, "err">,
  error: unknown,
  unreachableHint?: string,
): number {
  if (isWorkerRefusal(error)) {
    const what = error instanceof Unauthorized ? "refused the token" : "refused this worker id";
    io.err.write(`error: the control plane ${what}: ${error.message}\n`);
    io.err.write(
      error instanceof Unauthorized
        ? "hint: the token is wrong or was revoked; register again (whilly-worker register) and pass the new token\n"
        : "hint: a per-worker token acts only for its own worker id; drop --worker-id or use that worker's token\n",
    );
    return EXIT.usage;
  }
  if (error instanceof WhillyError) {
    io.err.write(`error: ${error.message}\n`);
    const hint = error.hint ?? (unreachable(error) ? unreachableHint : undefined);
    if (hint) io.err.write(`hint: ${hint}\n`);
    // A bad command line is usage; an InvalidInput from the control plane (422) is a failed request.
    const usage = error.code === "configuration" || (error instanceof InvalidInput && error.field === "argv");
    return usage ? EXIT.usage : EXIT.failed;
  }
  const system = describeSystemError(error);
  if (system) {
    io.err.write(`error: ${system.message}\nhint: ${system.hint}\n`);
    return system.exitCode;
  }
  io.err.write(`error: unexpected failure (a bug in whilly-worker): ${describeUnexpected(error)}\n`);
  return EXIT.failed;
}

/**
 * Reports an error that escaped `workerMain` (a failed write to standard output, an exception
 * in a callback) as the worker reports its own: one line and a hint for a refusal by the operating
 * system, the stack for a bug. For `bin/whilly-worker.js`, which owns the process.
 * @param subject names what failed when the error does not, e.g. `to standard output`.
 * @returns the exit code to end with.
 */
export function reportUncaughtWorkerError(
  io: Pick<WorkerIo, "err">,
  error: unknown,
  subject?: string,
): number {
  const system = subject === undefined ? undefined : describeSystemError(error, subject);
  if (system === undefined) return reportWorkerError(io, error);
  io.err.write(`error: ${system.message}\nhint: ${system.hint}\n`);
  return system.exitCode;
}

/** A refused worker token or worker id; a refused bootstrap token (`register`) is an ordinary failure. */
function isWorkerRefusal(error: unknown): error is Unauthorized | Forbidden {
  if (error instanceof Unauthorized) return error.credential === "worker_bearer";
  return error instanceof Forbidden;
}

/** A network failure or a 5xx: the control plane did not (properly) answer. */
function unreachable(error: WhillyError): boolean {
  return error instanceof TransportError && (error.status === undefined || error.status >= 500);
}

/**
 * ` · on codex (gpt-5-codex)` for an attempt on another agent than Claude Code (the default, whose
 * lines stay as they were); nothing otherwise.
 */
function ranOn(detail: { readonly [key: string]: unknown }): string {
  const { agent, model } = detail;
  if (typeof agent !== "string" || agent === "" || agent === "claude") return "";
  return typeof model === "string" && model !== "" ? ` · on ${agent} (${model})` : ` · on ${agent}`;
}
