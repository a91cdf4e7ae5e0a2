// Workers with a no-op agent draining a plan: each a loop of claim (long poll, start: true) → complete.
import { setMaxListeners } from "node:events";
import { now, sleep } from "./stats.mjs";

/** A loop gives up after this many failed requests in all (the server is down or misconfigured). */
const MAX_ERRORS = 50;

/**
 * Runs one claim → complete loop per worker until `total` tasks are complete or `timeLimitMs` passes,
 * then abandons the claims still parked (the server sees their clients leave).
 * @param {{ client: import("./client.mjs").BenchClient, workers: import("./client.mjs").Worker[],
 *   planId: string, total: number, timeLimitMs: number }} options
 * @returns {Promise<DrainResult>}
 * @typedef {{ completed: number, elapsedMs: number, timedOut: boolean, emptyClaims: number,
 *   errors: number, lastError: string | undefined, cycleMs: number[] }} DrainResult
 */
export async function drain({ client, workers, planId, total, timeLimitMs }) {
  const stop = new AbortController();
  // Every parked claim listens on it; that many listeners is the design, not a leak.
  setMaxListeners(workers.length + 8, stop.signal);
  const started = now();
  let finishedAt;
  let completed = 0;
  let emptyClaims = 0;
  let errors = 0;
  let lastError;
  /** Claim sent → complete answered, per task, ms. */
  const cycleMs = [];
  const timer = setTimeout(() => stop.abort(), timeLimitMs);
  const failed = async (error) => {
    errors++;
    lastError = error instanceof Error ? error.message : String(error);
    if (errors >= MAX_ERRORS) stop.abort();
    await sleep(20);
  };

  const loop = async (worker) => {
    while (!stop.signal.aborted) {
      const claimedAt = now();
      let task;
      try {
        task = await client.claim(worker, planId, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) return;
        await failed(error);
        continue;
      }
      if (!task) {
        emptyClaims++;
        continue;
      }
      try {
        await client.complete(worker, task);
      } catch (error) {
        await failed(error);
        continue;
      }
      cycleMs.push(now() - claimedAt);
      completed++;
      if (completed >= total) {
        finishedAt = now();
        stop.abort();
      }
    }
  };
  await Promise.all(workers.map(loop));
  clearTimeout(timer);
  const timedOut = finishedAt === undefined;
  return {
    completed,
    elapsedMs: (finishedAt ?? now()) - started,
    timedOut,
    emptyClaims,
    errors,
    lastError,
    cycleMs,
  };
}
