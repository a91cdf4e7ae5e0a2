import type { TaskStore } from "@whilly/core";

/** How to tell whether a process on this host is alive (injected for tests). */
export type PidAlive = (pid: number) => boolean;

/** Local worker ids look like `local-<hostname>-<pid>`; the pid tells whether that run is gone. */
export function localWorkerId(hostname: string, pid: number): string {
  return `local-${hostname}-${pid}`;
}

function pidOf(workerId: string, hostname: string): number | undefined {
  const prefix = `local-${hostname}-`;
  if (!workerId.startsWith(prefix)) return undefined;
  const pid = Number(workerId.slice(prefix.length));
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Returns to PENDING the tasks that an earlier local run left claimed, so a `kill -9` loses nothing:
 * tasks held by a `whilly run` of this host whose process is gone (`worker_offline`), and, on any store,
 * tasks whose lease expired (`visibility_timeout`). With the embedded store this process holds the
 * data-directory lock, so every other holder is gone (`exclusive`).
 * @returns the ids of the released tasks.
 */
export async function recoverOrphanedClaims(
  store: TaskStore,
  options: { selfId: string; hostname: string; exclusive: boolean; isAlive: PidAlive },
): Promise<string[]> {
  const released: string[] = [];
  for (const worker of await store.listWorkers()) {
    if (worker.workerId === options.selfId) continue;
    const pid = pidOf(worker.workerId, options.hostname);
    const gone = options.exclusive || (pid !== undefined && !options.isAlive(pid));
    if (!gone) continue;
    const tasks = await store.releaseWorkerTasks(worker.workerId, "worker_offline");
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
