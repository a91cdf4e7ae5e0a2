import type { PlanSpec, Priority, TaskRecord, TaskSpec, TaskStatus } from "@whilly/core";
import type { Store } from "../store.js";

/** What every contract group gets: the store of the running test, fresh per test. */
export type ContractContext = { readonly store: Store };

/** A task spec with defaults for every field the test does not care about. */
export function task(
  id: string,
  options: {
    deps?: string[];
    priority?: Priority;
    status?: TaskStatus;
    description?: string;
    extra?: TaskSpec["extra"];
    keyFiles?: string[];
    maxAttempts?: number;
  } = {},
): TaskSpec {
  return {
    id,
    status: options.status ?? "PENDING",
    priority: options.priority ?? "medium",
    description: options.description ?? `do ${id}`,
    dependencies: options.deps ?? [],
    keyFiles: options.keyFiles ?? [`src/${id}.ts`],
    acceptanceCriteria: [`${id} works`],
    testSteps: [`test ${id}`],
    prdRequirement: "",
    version: 0,
    extra: options.extra ?? {},
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  };
}

/** A plan spec holding `tasks`. */
export function plan(id: string, tasks: TaskSpec[], options: Partial<PlanSpec> = {}): PlanSpec {
  return {
    id,
    name: options.name ?? `Plan ${id}`,
    tasks,
    agentInstructions: options.agentInstructions ?? { before: [], after: [] },
    keptInstructions: options.keptInstructions ?? {},
    extra: options.extra ?? {},
    ...(options.reserveMicroUsd === undefined ? {} : { reserveMicroUsd: options.reserveMicroUsd }),
    ...(options.verify === undefined ? {} : { verify: options.verify }),
    ...(options.setup === undefined ? {} : { setup: options.setup }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.githubIssueRef === undefined ? {} : { githubIssueRef: options.githubIssueRef }),
    ...(options.origin === undefined ? {} : { origin: options.origin }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.fallbackAgents === undefined ? {} : { fallbackAgents: options.fallbackAgents }),
  };
}

/** Plan options for tests of a task's final failure: one attempt, so the first FAIL is the last. */
export const ONE_ATTEMPT = { maxAttempts: 1 } as const;

/** Registers `workerId` and claims one task of `planId` with a one-minute lease. */
export async function claimAs(
  store: Store,
  planId: string,
  workerId: string,
): Promise<TaskRecord | undefined> {
  await store.upsertWorker({ workerId, hostname: "test-host" });
  return store.claim({ planId, workerId, leaseMs: 60_000 });
}

/** Claims everything claimable in `planId` as `workerId`; returns the task ids in claim order. */
export async function drain(store: Store, planId: string, workerId: string): Promise<string[]> {
  const order: string[] = [];
  for (;;) {
    const claimed = await claimAs(store, planId, workerId);
    if (!claimed) return order;
    order.push(claimed.id);
  }
}

/** Claims, starts and completes the next ready task with `costMicroUsd`; fails the test when none is ready. */
export async function runNext(
  store: Store,
  planId: string,
  workerId: string,
  costMicroUsd = 0,
): Promise<TaskRecord> {
  const claimed = await claimAs(store, planId, workerId);
  if (!claimed) throw new Error(`nothing ready in ${planId}`);
  const started = await store.start({ planId, taskId: claimed.id, workerId, version: claimed.version });
  const done = await store.complete({
    planId,
    taskId: claimed.id,
    workerId,
    version: started.version,
    costMicroUsd,
  });
  return done.task;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The event types of a plan, in log order. */
export async function eventTypes(store: Store, planId: string, taskId?: string): Promise<string[]> {
  const events = await store.listEvents(planId, { limit: 10_000 });
  return events.filter((e) => taskId === undefined || e.taskId === taskId).map((e) => e.eventType);
}

/** Captures the error `promise` rejects with; fails when it resolves. */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
