import type { TaskRef } from "@whilly/core";
import type { Store } from "../store/store.js";
import type { Coordinator } from "./coordinator.js";

/** The binding that event signals and stream waits go through (part of `DurableBindings`). */
export type CoordinatorBinding = { readonly COORDINATOR: DurableObjectNamespace<Coordinator> };

/**
 * The Coordinator instance that parks the streams of every plan (`GET /api/v1/events/stream`). Postgres
 * text cannot hold U+0000, so no plan id is this name.
 */
export const ALL_PLANS = "\u0000all-plans";

/**
 * Wakes the audit-event streams of `planIds` and the every-plan streams, after a commit that wrote
 * events of those plans. A signal lost on the way only delays a stream until its poll.
 */
export async function signalEvents(bindings: CoordinatorBinding, planIds: Iterable<string>): Promise<void> {
  const plans = [...new Set(planIds)];
  if (plans.length === 0) return;
  const notify = (name: string) =>
    bindings.COORDINATOR.get(bindings.COORDINATOR.idFromName(name)).notifyEvents();
  await Promise.all([notify(ALL_PLANS), ...plans.map(notify)]);
}

type Method = keyof Store;
type Args<M extends Method> = Store[M] extends (...args: infer A) => unknown ? A : never;
type Result<M extends Method> = Store[M] extends (...args: never[]) => Promise<infer R> ? R : never;
type PlansOf<M extends Method> = (args: Args<M>, result: Result<M>) => readonly string[];

const refs = (tasks: readonly TaskRef[] | readonly { planId: string }[]) => tasks.map((task) => task.planId);

/**
 * The store's writes that append audit events, and the plans whose events each wrote once it resolved
 * (a write that throws committed nothing). A write missing here only leaves streams to their poll.
 */
const EVENT_WRITES: { readonly [M in Method]?: PlansOf<M> } = {
  importPlan: (_args, result) => [result.plan.id],
  appendEvent: ([input]) => [input.planId],
  appendEvents: ([events], written) => (written > 0 ? events.map((event) => event.planId) : []),
  skipTask: ([input]) => [input.planId],
  resetPlan: ([planId]) => [planId],
  setPlanBudget: ([planId]) => [planId],
  claim: ([input], claimed) => (claimed ? [input.planId] : []),
  claimWithPlan: ([input], claimed) => (claimed ? [input.planId] : []),
  start: ([fence]) => [fence.planId],
  complete: ([fence]) => [fence.planId],
  fail: ([fence]) => [fence.planId],
  release: ([fence]) => [fence.planId],
  releaseUnseenClaim: (_args, released) => (released ? [released.planId] : []),
  heartbeat: (_args, result) => refs(result.released),
  releaseWorkerTasks: (_args, released) => refs(released),
  releaseExpiredLeases: (_args, released) => refs(released),
  releaseOfflineWorkers: (_args, result) => refs(result.released),
  revokeWorker: (_args, result) => refs(result.released),
  resetTask: ([planId]) => [planId],
  releaseTask: ([planId]) => [planId],
  pauseWorkers: (_args, result) => result.planIds,
  resumeWorkers: (_args, result) => result.planIds,
  recordTaskEvent: ([input], result) => (result.recorded ? [input.planId] : []),
};

/**
 * `store` with each event-writing method reporting, once its commit returned, the plans it wrote
 * events for to `committed` (not called when it wrote none). Other methods are `store`'s own.
 */
export function signallingStore(store: Store, committed: (planIds: readonly string[]) => void): Store {
  const wrapped: Record<string, unknown> = { ...store };
  for (const [name, plansOf] of Object.entries(EVENT_WRITES)) {
    const method = store[name as Method];
    if (typeof method !== "function") continue;
    const of = plansOf as (args: unknown[], result: unknown) => readonly string[];
    wrapped[name] = async (...args: unknown[]) => {
      const result = await (method as (...a: unknown[]) => Promise<unknown>).apply(store, args);
      const plans = of(args, result);
      if (plans.length > 0) committed(plans);
      return result;
    };
  }
  return wrapped as unknown as Store;
}
