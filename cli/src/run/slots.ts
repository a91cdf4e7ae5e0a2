import {
  createCapabilities,
  createPauseGate,
  createTaskBudget,
  createTaskClient,
  createTrizHook,
  type GenerationAgent,
  type ProgressEvent,
  runWorkerLoop,
  type WorkerStats,
} from "@whilly/agent";
import { type AppSettings, createApp, inProcessAuth, type Store } from "@whilly/worker-api";
import type { Io } from "../io.js";
import type { CliSettings } from "../settings.js";
import { localCapabilities } from "./capabilities.js";
import type { PlanRunner } from "./plan-runner.js";
import { capabilityWaitPrinter, operatorPausePrinter, retryWaitPrinter, waitWhileIdle } from "./waiting.js";

/** Input of {@link runSlots}. Durations are ms. */
export type SlotsInput = {
  readonly store: Store;
  readonly planId: string;
  readonly settings: CliSettings;
  /** One claim slot per id (see {@link slotWorkerIds}); each registered as a worker already. */
  readonly workerIds: readonly string[];
  readonly runner: PlanRunner;
  readonly stopSignal: AbortSignal;
  /** `--max-tasks`, shared by every slot. */
  readonly maxTasks: number | undefined;
  readonly noWait: boolean;
  readonly idlePollMs: number;
  /** On a shared database: takes back what a run that fell silent left; the count released. */
  readonly recover: (() => Promise<number>) | undefined;
  readonly onProgress: (event: ProgressEvent) => void;
  readonly io: Pick<Io, "err">;
  /** How the failure analysis asks after each FAIL (`WHILLY_TRIZ_ENABLED`, docs/triz.md); none when undefined. */
  readonly trizAgent?: GenerationAgent | undefined;
};

/** What the slots left: their counters, a provider limit's pause still on, and retries left waiting. */
export type SlotsResult = {
  readonly stats: WorkerStats;
  /** When the pause of a provider limit ends (ms since the epoch), if it still holds. */
  readonly pausedUntil: number | undefined;
  /** `--no-wait` ended a slot while a retry waited out its backoff. */
  readonly retriesLeftWaiting: boolean;
};

/**
 * Runs one worker loop per slot through an in-process control plane on `store`, all sharing one pause
 * (a provider limit stops every slot's claims) and one `--max-tasks` budget, until every slot ends.
 */
export async function runSlots(input: SlotsInput): Promise<SlotsResult> {
  const { settings, store } = input;
  const app = createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    secrets: settings.secrets,
    settings: appSettingsOf(settings),
  });
  const gate = createPauseGate({
    backoffMs: settings.limitBackoffMs,
    backoffMaxMs: settings.limitBackoffMaxMs,
  });
  const agents = input.runner.agents;
  // One set for every slot: a usage limit on an agent holds for the whole account, like the pause.
  const capabilities =
    agents === undefined
      ? undefined
      : createCapabilities({
          agents: agents.working,
          tags: agents.tags,
          backoffMs: settings.limitBackoffMs,
          backoffMaxMs: settings.limitBackoffMaxMs,
        });
  const taskBudget = input.maxTasks === undefined ? undefined : createTaskBudget(input.maxTasks);
  const waits = retryWaitPrinter(input.io);
  const operatorPause = operatorPausePrinter(input.io);
  const capabilityWaits = capabilityWaitPrinter(input.io);
  const all = await Promise.all(
    input.workerIds.map((workerId) => {
      const client = createTaskClient({
        baseUrl: "http://whilly.local",
        fetch: (url, init) => Promise.resolve(app.request(url, init)),
        workerId,
      });
      // Each slot reports the analysis of the tasks it ran, as the worker that ran them.
      const trizAgent = input.trizAgent;
      const afterFail =
        trizAgent === undefined
          ? undefined
          : createTrizHook({
              agent: trizAgent,
              adapterFor: (name) => agents?.adapters.find((adapter) => adapter.name === name),
              client,
              onProgress: input.onProgress,
            });
      return runWorkerLoop({
        client,
        afterFail,
        planId: input.planId,
        runAttempt: input.runner.runAttempt(workerId, input.workerIds),
        stopSignal: input.stopSignal,
        heartbeatIntervalMs: settings.heartbeatIntervalMs,
        progressIntervalMs: settings.progressIntervalMs,
        taskBudget,
        pause: gate,
        capabilities,
        choice: agents?.choice,
        whenPaused: input.noWait ? "stop" : "wait",
        // On a shared database a run that died moments ago still looks alive at start (its heartbeat is
        // fresh); with no `whilly server` sweeping, only this wait can notice it fall silent later.
        onIdle: async () => {
          if (input.recover !== undefined && (await input.recover()) > 0) return true;
          return waitWhileIdle({
            store,
            planId: input.planId,
            selfId: workerId,
            pollMs: input.idlePollMs,
            noWait: input.noWait,
            signal: input.stopSignal,
            onRetryWait: waits.waiting,
            onLeftWaiting: waits.leftWaiting,
            capabilities: localCapabilities(agents),
            onWaitingForCapability: capabilityWaits,
            paused: () => gate.pausedUntil() !== undefined,
            operatorPaused: async () => (await store.readWorkersPause()) !== undefined,
            onOperatorPause: operatorPause.paused,
          });
        },
        onProgress: (event) => {
          if (event.kind === "claimed") operatorPause.claimed();
          input.onProgress(event);
        },
      });
    }),
  );
  return { stats: sumStats(all), pausedUntil: gate.pausedUntil(), retriesLeftWaiting: waits.leftAny() };
}

/** The in-process control plane's settings: no long-poll (local mode sees the store itself). */
function appSettingsOf(settings: CliSettings): AppSettings {
  return {
    leaseMs: settings.leaseMs,
    claimWaitMs: 0,
    claimRecheckMs: 1000,
    retryBackoff: { baseMs: settings.retryBackoffMs, capMs: settings.retryBackoffMaxMs },
  };
}

/** The worker id of each claim slot: `base` for the first, `base-2`, `base-3`, ... for the others. */
export function slotWorkerIds(base: string, slots: number): string[] {
  return Array.from({ length: slots }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`));
}

/** The counters of every slot added up. */
export function sumStats(all: readonly WorkerStats[]): WorkerStats {
  const total: WorkerStats = {
    claimed: 0,
    completed: 0,
    failed: 0,
    retried: 0,
    released: 0,
    limited: 0,
    lost: 0,
    idlePolls: 0,
  };
  for (const one of all)
    for (const key of Object.keys(total) as (keyof WorkerStats)[]) total[key] += one[key];
  return total;
}
