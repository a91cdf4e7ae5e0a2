import { type ClaimResponse, type HeartbeatResponse, type TaskPayload, TransportError } from "@whilly/core";
import type { TaskClient } from "../../client/task-client.js";
import type { WorkerLoopOptions } from "../loop.js";
import type { AgentAttempt, ProgressEvent } from "../types.js";

/** A task as a claim hands it out: `CLAIMED`, version 1. */
export const claimedTask: TaskPayload = {
  plan_id: "p",
  id: "T-1",
  status: "CLAIMED",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 1,
  attempts: 0,
  claimed_by: "w1",
  lease_expires_at: null,
};
/** {@link claimedTask} started. */
export const inProgress: TaskPayload = { ...claimedTask, status: "IN_PROGRESS", version: 2, attempts: 1 };
/** A DONE attempt. */
export const ok: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 10, aborted: false, detail: {} };

/** One call the scripted client took. */
export type Call = { method: string; version?: number; reason?: string };

/**
 * A task client whose replies are scripted per method: each call takes the next step of its method's
 * list (the last one repeats); a step is a value or an error to throw.
 */
export function scriptedClient(script: Partial<Record<keyof TaskClient, unknown[]>>) {
  const calls: Call[] = [];
  const reportKeys: (string | undefined)[] = [];
  // What each report and release carried besides the fence.
  const bodies: { method: string; body: unknown }[] = [];
  const next = (method: keyof TaskClient): unknown => {
    const steps = script[method] ?? [];
    const used = calls.filter((c) => c.method === method).length - 1;
    return steps[Math.min(used, steps.length - 1)];
  };
  const reply = async <T>(method: keyof TaskClient, call: Omit<Call, "method"> = {}): Promise<T> => {
    calls.push({ method, ...call });
    const step = next(method);
    if (step instanceof Error) throw step;
    return step as T;
  };
  const client: TaskClient = {
    claim: async (_planId, options) => {
      if (script.claim?.[0] === "park") {
        calls.push({ method: "claim" });
        return new Promise((_resolve, reject) =>
          options?.signal?.addEventListener("abort", () => reject(new TransportError("aborted", undefined))),
        );
      }
      return reply<ClaimResponse | undefined>("claim");
    },
    start: (task) => reply("start", { version: task.version }),
    complete: (task, report) => {
      reportKeys.push(report.idempotencyKey);
      bodies.push({ method: "complete", body: report });
      return reply("complete", { version: task.version });
    },
    fail: (task, reason, report) => {
      bodies.push({ method: "fail", body: report });
      return reply("fail", { version: task.version, reason });
    },
    release: (task, reason, pause, spend) => {
      bodies.push({ method: "release", body: pause });
      if (spend !== undefined) bodies.push({ method: "release-spend", body: spend });
      return reply("release", { version: task.version, reason });
    },
    heartbeat: () => reply<HeartbeatResponse>("heartbeat"),
    reportEvent: (task, event) => {
      bodies.push({ method: "reportEvent", body: event });
      return reply("reportEvent", { reason: `${task.id}:${event.eventType}` });
    },
  };
  return {
    client,
    calls,
    reportKeys,
    bodies,
    count: (method: string) => calls.filter((c) => c.method === method).length,
  };
}

/** Loop options around `client`: one task, fast backoff; `events` collects what the loop reports. */
export function loopOptions(client: TaskClient, overrides: Partial<WorkerLoopOptions> = {}) {
  const events: ProgressEvent[] = [];
  const options: WorkerLoopOptions = {
    client,
    planId: "p",
    runAttempt: async () => ok,
    stopSignal: new AbortController().signal,
    heartbeatIntervalMs: 60_000,
    maxTasks: 1,
    onIdle: async () => true,
    onProgress: (event) => events.push(event),
    backoff: { initialMs: 1, maxMs: 2 },
    ...overrides,
  };
  return { options, events };
}

/** A claim reply of {@link claimedTask} without plan context or dependency work. */
export const claimReply = { task: claimedTask, plan: null };
