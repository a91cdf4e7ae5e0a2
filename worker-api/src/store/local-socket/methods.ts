import type { Store } from "../store.js";

/**
 * How a Store member is reached over the local socket: `call` answers once; `listen` is a
 * subscription (its handler is called for each signal until the client closes it or disconnects);
 * `local` is never sent (`close()` closes the connection, `driver` comes with the greeting).
 */
export type MethodKind = "call" | "listen" | "local";

/**
 * Every member of the Store interface and how it is served: the allow-list of the socket (nothing
 * else is callable), typed so that a member added to {@link Store} without an entry here does not
 * compile.
 */
export const STORE_METHODS: { readonly [K in keyof Required<Store>]-?: MethodKind } = {
  driver: "local",
  close: "local",
  listenForReady: "listen",
  listenForEvents: "listen",
  createPlan: "call",
  setPlanBudget: "call",
  setPlanMaxAttempts: "call",
  importPlan: "call",
  getPlan: "call",
  findPlanByIssueRef: "call",
  listPlans: "call",
  listTasks: "call",
  listWaiting: "call",
  listBlocked: "call",
  listEvents: "call",
  listTaskEvents: "call",
  appendEvent: "call",
  skipTask: "call",
  resetPlan: "call",
  upsertWorker: "call",
  heartbeat: "call",
  claim: "call",
  start: "call",
  complete: "call",
  fail: "call",
  release: "call",
  releaseWorkerTasks: "call",
  releaseExpiredLeases: "call",
  findClaimedPlans: "call",
  listWorkers: "call",
  getTask: "call",
  appendEvents: "call",
  releaseOfflineWorkers: "call",
  registerWorker: "call",
  findWorkerByTokenHash: "call",
  revokeWorker: "call",
  claimWithPlan: "call",
  hasReadyForOthers: "call",
  createReadToken: "call",
  findReadTokenByHash: "call",
  findReadTokenById: "call",
  listReadTokens: "call",
  revokeReadToken: "call",
  touchWorker: "call",
  releaseUnseenClaim: "call",
  readMetrics: "call",
  ping: "call",
  readSettledEvents: "call",
  cursorAfterEvent: "call",
  settledHead: "call",
  resetTask: "call",
  releaseTask: "call",
  pauseWorkers: "call",
  resumeWorkers: "call",
  readWorkersPause: "call",
  recordTaskEvent: "call",
};

/** The kind of `name` when it is a Store member, else `undefined` (refused). */
export function methodKind(name: string): MethodKind | undefined {
  return Object.hasOwn(STORE_METHODS, name) ? STORE_METHODS[name as keyof Store] : undefined;
}

/** The version of the socket's protocol: a client refuses a server that speaks another. */
export const PROTOCOL_VERSION = 1;
