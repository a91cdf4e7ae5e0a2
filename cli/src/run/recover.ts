import type { TaskStore } from "@whilly/core";

/** How to tell whether a process on this host is alive (injected for tests). */
export type PidAlive = (pid: number) => boolean;

const LOCAL_PREFIX = "local-";

/**
 * Local worker ids look like `local-<hostname>-<pid>`, and `local-<hostname>-<pid>-<slot>` for the
 * second and later claim slots of `whilly run --concurrency N`; the pid tells whether that run is gone.
 */
export function localWorkerId(hostname: string, pid: number, slot = 1): string {
  return slot === 1 ? `${LOCAL_PREFIX}${hostname}-${pid}` : `${LOCAL_PREFIX}${hostname}-${pid}-${slot}`;
}

function pidOf(workerId: string, hostname: string): number | undefined {
  const prefix = `${LOCAL_PREFIX}${hostname}-`;
  if (!workerId.startsWith(prefix)) return undefined;
  const match = /^(\d+)(?:-\d+)?$/.exec(workerId.slice(prefix.length));
  const pid = Number(match?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * How many heartbeat intervals a same-host run must have been silent before its tasks are taken back
 * on a shared database. Its worker loop beats every `WHILLY_HEARTBEAT_INTERVAL` while it runs, so three
 * intervals allow two missed beats (a slow request, a short database outage) before it counts as gone.
 */
export const SILENT_INTERVALS = 3;

/** Options of {@link recoverOrphanedClaims}. */
export type RecoverOptions = {
  /** This run's worker ids (one per claim slot), never released. */
  readonly selfIds: readonly string[];
  /** This host's name, as in `local-<hostname>-<pid>` worker ids. */
  readonly hostname: string;
  /** True when this process holds the embedded store's lock, so no other run can be alive. */
  readonly exclusive: boolean;
  readonly isAlive: PidAlive;
  /** This run's heartbeat period (ms), `WHILLY_HEARTBEAT_INTERVAL`; see {@link SILENT_INTERVALS}. */
  readonly heartbeatIntervalMs: number;
  /**
   * Ends what attempts of runs that are gone left running on this host (their agents, in the worktrees
   * the tasks would run in again); called at most once per recovery, before the first of a gone run's
   * tasks is taken back. It must end only attempts whose runner process is gone. None when undefined.
   */
  readonly endAttemptsOfGoneRuns?: (() => void | Promise<void>) | undefined;
};

/**
 * Returns to PENDING the tasks that an earlier local run left claimed, so a `kill -9` loses nothing:
 * tasks held by a `whilly run` that is gone (`worker_offline`), and, on any store, tasks whose lease
 * expired (`visibility_timeout`).
 *
 * With the embedded store this process holds the data-directory lock, so every other local run
 * (`local-…` worker ids, on any host sharing the directory) is gone (`exclusive`). Workers of a
 * `whilly server` that served this store are not: they run elsewhere and may still be running a
 * task while the server is down, so their tasks come back only when their lease expires (a run with a
 * custom `WHILLY_WORKER_ID` is treated the same way). On a shared Postgres a missing pid is not proof: another machine or container may
 * have the same hostname and run a process with that pid. There a `local-<this host>-<pid>` run counts
 * as gone only when its pid is not alive here AND its last heartbeat is older than
 * {@link SILENT_INTERVALS} heartbeat intervals, judged on the database clock by the store. Before a
 * gone run's tasks are taken back, `endAttemptsOfGoneRuns` ends what its attempts left running.
 * @returns the ids of the released tasks, as `<plan>/<task>`.
 * @throws {InvalidInput} for a negative or fractional `heartbeatIntervalMs`.
 */
export async function recoverOrphanedClaims(store: TaskStore, options: RecoverOptions): Promise<string[]> {
  const released: string[] = [];
  const silentForMs = options.exclusive ? undefined : SILENT_INTERVALS * options.heartbeatIntervalMs;
  let ended = false;
  for (const worker of await store.listWorkers()) {
    if (options.selfIds.includes(worker.workerId)) continue;
    const pid = pidOf(worker.workerId, options.hostname);
    const gone = options.exclusive
      ? worker.workerId.startsWith(LOCAL_PREFIX)
      : pid !== undefined && !options.isAlive(pid);
    if (!gone) continue;
    // A gone run's agents may still work in its tasks' worktrees: end them before the tasks run again.
    if (!ended) await options.endAttemptsOfGoneRuns?.();
    ended = true;
    const tasks = await store.releaseWorkerTasks(worker.workerId, "worker_offline", { silentForMs });
    released.push(...tasks.map((t) => `${t.planId}/${t.id}`));
  }
  const expired = await store.releaseExpiredLeases();
  released.push(...expired.map((t) => `${t.planId}/${t.id}`));
  return released;
}

/** True when a process with this pid exists on this host (signal 0 probes without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
