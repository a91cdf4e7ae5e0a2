import type { HeartbeatTask, TaskClient } from "../client/task-client.js";

/**
 * Heartbeats on a timer of its own, so leases stay renewed while the agent runs for longer than the
 * visibility timeout. The first beat is immediate. Failures are reported and the timer keeps going.
 * @param intervalMs time between beats (ms); keep it well under the lease length.
 * @param running the tasks the worker runs now, from a claim's reply until its report is answered, with
 *   their attempts' progress (sent along for dashboards): only their leases are renewed, and a task held without the worker knowing (a lost claim reply) is
 *   released by the second beat that leaves it out (`claim_lost`, docs/protocol.md).
 * @returns a function that stops the timer.
 */
export function startHeartbeat(
  client: TaskClient,
  intervalMs: number,
  onError: (error: Error) => void,
  running: () => readonly HeartbeatTask[] = () => [],
): () => void {
  let inFlight = false;
  const beat = async () => {
    if (inFlight) return;
    inFlight = true;
    try {
      await client.heartbeat(running());
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
    } finally {
      inFlight = false;
    }
  };
  void beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
