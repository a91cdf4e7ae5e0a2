import {
  carriesMark,
  descendantsOf,
  type ProcessId,
  type ProcRow,
  procAvailable,
  readTable,
} from "./proc-table.js";

/** The environment variable that marks every process of one attempt; its value is the attempt's id. */
export const ATTEMPT_ID_VARIABLE = "WHILLY_ATTEMPT_ID";

/** What belongs to one attempt: processes carrying its mark, the given processes, and all their descendants. */
export type AttemptProcesses = {
  /** The attempt's id, the value of {@link ATTEMPT_ID_VARIABLE} in its processes' environments. */
  readonly attemptId: string;
  /** Processes known to belong to it (the agent, its tree as last seen); each counts only while its start time matches. */
  readonly known?: readonly ProcessId[];
};

/** How many rounds {@link endAttemptProcesses} makes before it gives up on processes that keep appearing. */
const MAX_ROUNDS = 50;

/**
 * The processes of an attempt alive now: those carrying its mark in `/proc/<pid>/environ`, the `known`
 * ones whose start time still matches (a reused pid is someone else), and the live descendants of both.
 * This process is never included. Empty where `/proc` is not available.
 */
export function findAttemptProcesses(target: AttemptProcesses): ProcRow[] {
  if (!procAvailable()) return [];
  const table = readTable();
  const known = new Map((target.known ?? []).map((p) => [p.pid, p.startTime]));
  const own = table.filter(
    (row) =>
      row.pid !== process.pid &&
      (known.get(row.pid) === row.startTime || carriesMark(row.pid, ATTEMPT_ID_VARIABLE, target.attemptId)),
  );
  const all = [
    ...own,
    ...descendantsOf(
      table,
      own.map((r) => r.pid),
    ),
  ];
  return all.filter((row) => row.pid !== process.pid);
}

/**
 * Ends every process of an attempt (see {@link findAttemptProcesses}), Linux only. Each round stops what
 * it finds with SIGSTOP, looks again until no new process shows up (a fork caught between look and stop),
 * then sends SIGKILL to all of them; rounds repeat until none is found, at most 50. Synchronous, so it
 * can run while the process exits. Where `/proc` is missing it does nothing: the runner's group kill is
 * all there is (docs/agent.md).
 * @returns how many processes were sent SIGKILL (each counted once).
 */
export function endAttemptProcesses(target: AttemptProcesses): number {
  const killed = new Set<number>();
  // Processes this user may not signal (EPERM) are left alone rather than retried every round.
  const refused = new Set<number>();
  const find = () => findAttemptProcesses(target).filter((row) => !refused.has(row.pid));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const stopped = new Map<number, ProcRow>();
    for (let look = 0; look < MAX_ROUNDS; look++) {
      const fresh = find().filter((row) => !stopped.has(row.pid));
      if (fresh.length === 0) break;
      for (const row of fresh) {
        if (signal(row.pid, "SIGSTOP") === "refused") refused.add(row.pid);
        else stopped.set(row.pid, row);
      }
    }
    if (stopped.size === 0) break;
    for (const row of stopped.values()) if (signal(row.pid, "SIGKILL") === "sent") killed.add(row.pid);
  }
  return killed.size;
}

function signal(pid: number, name: NodeJS.Signals): "sent" | "gone" | "refused" {
  try {
    process.kill(pid, name);
    return "sent";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? "refused" : "gone";
  }
}
