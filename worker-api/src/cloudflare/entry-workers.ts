import { ConfigurationError, errorSummary } from "@whilly/core";
import { type App, createApp } from "../app/app.js";
import { createTokenAuth } from "../auth/token-auth.js";
import { openNeonStore } from "../store/open/neon.js";
import type { Store } from "../store/store.js";
import { DEFAULT_EVENT_STREAM } from "../stream/index.js";
import { offlineEvents, plansWithReleases, runSweep, type SweepResult } from "../sweeps/run-sweep.js";
import { bufferEvents, type DurableBindings, wakePlans } from "./durable.js";
import { coordinatorEventFeed } from "./event-feed.js";
import { signalEvents, signallingStore } from "./event-signals.js";
import { log } from "./log.js";
import { Outbox } from "./outbox.js";
import { settingsFor, type WorkersSettings } from "./settings.js";

export { Coordinator } from "./coordinator.js";
export { EventBuffer } from "./event-buffer.js";

/**
 * The Worker's environment: the Durable Object bindings, plus the vars and secrets that
 * {@link settingsFor} reads and validates (see `settings.ts`).
 */
export type WorkersEnv = DurableBindings;

/** What an isolate builds once from its environment. */
type Runtime = { readonly app: App; readonly outbox: Outbox; readonly settings: WorkersSettings };

const runtimes = new WeakMap<object, Runtime | ConfigurationError>();

/**
 * The control plane on Cloudflare Workers: protocol v1 over Postgres through the Neon driver, long
 * polls parked in the Coordinator Durable Object, non-transition events batched by the EventBuffer
 * Durable Object, live audit-event streams parked in the Coordinator and woken by every request that
 * committed events, and the lease sweep on a Cron Trigger. A bad environment answers every request with
 * a 500 envelope `bad_environment` naming the variable.
 */
export default {
  async fetch(request, env, ctx) {
    const runtime = runtimeFor(env);
    if (runtime instanceof ConfigurationError) return badEnvironment(runtime);
    try {
      return await runtime.app.fetch(request, env, ctx);
    } finally {
      await runtime.outbox.send(ctx, log);
    }
  },

  /**
   * The Cron Trigger: the lease sweep. Expired leases and the tasks of workers silent for
   * `WHILLY_HEARTBEAT_TIMEOUT` go back to `PENDING`, claims parked on those plans are woken, and the
   * `worker.offline` summaries go to the event buffer.
   */
  async scheduled(_controller, env) {
    const settings = settingsFor(env);
    if (settings instanceof ConfigurationError) throw settings;
    const committed = new Set<string>();
    const result = await withStore(settings, (store) =>
      runSweep(
        signallingStore(store, (plans) => {
          for (const plan of plans) committed.add(plan);
        }),
        settings.heartbeatTimeoutMs,
      ),
    );
    await Promise.all([
      wakePlans(env, plansWithReleases(result)),
      bufferEvents(env, offlineEvents(result)),
      signalEvents(env, committed).catch((error: unknown) =>
        log("warn", "coordinator.events_signal_failed", {
          plans: [...committed],
          error: errorSummary(error),
        }),
      ),
    ]);
    logSweep(result);
  },
} satisfies ExportedHandler<WorkersEnv>;

/** The isolate's app, built on its first request; a bad environment is remembered as its error. */
function runtimeFor(env: WorkersEnv): Runtime | ConfigurationError {
  const known = runtimes.get(env);
  if (known !== undefined) return known;
  const runtime = buildRuntime(env);
  if (runtime instanceof ConfigurationError) {
    log("error", "workers.bad_environment", { detail: runtime.message });
  }
  runtimes.set(env, runtime);
  return runtime;
}

function buildRuntime(env: WorkersEnv): Runtime | ConfigurationError {
  const settings = settingsFor(env);
  if (settings instanceof ConfigurationError) return settings;
  let auth: ReturnType<typeof createTokenAuth>;
  try {
    auth = createTokenAuth({ ...settings.auth, log });
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  const outbox = new Outbox(env, { recheckMs: settings.app.claimRecheckMs });
  // Every write that commits events records its plans, whose streams the request wakes when it ends.
  const signalling = <T>(use: (store: Store) => Promise<T>) =>
    withStore(settings, (store) => use(signallingStore(store, (plans) => outbox.eventsCommitted(plans))));
  const app = createApp({
    withStore: signalling,
    auth,
    coordinator: outbox.coordinator,
    events: outbox.events,
    eventFeed: coordinatorEventFeed({
      bindings: env,
      withStore: (use) => withStore(settings, use),
      pollMs: (settings.app.events ?? DEFAULT_EVENT_STREAM).pollMs,
      subrequests: settings.eventSubrequests,
    }),
    settings: settings.app,
    secrets: settings.secrets,
    log,
  });
  return { app, outbox, settings };
}

/**
 * Runs `use` on a store of its own: a Neon pool opened for this unit of work and ended with it, since
 * workerd forbids reusing a connection across requests, and a claim parked between two attempts
 * should hold no connection.
 */
async function withStore<T>(settings: WorkersSettings, use: (store: Store) => Promise<T>): Promise<T> {
  const store = openNeonStore(settings.database);
  try {
    return await use(store);
  } finally {
    await store.close().catch(() => {});
  }
}

function logSweep(result: SweepResult): void {
  if (result.expired.length === 0 && result.offlineWorkers.length === 0) return;
  const ref = (task: { planId: string; id: string }) => `${task.planId}/${task.id}`;
  log("info", "sweep.released", {
    visibility_timeout: result.expired.map(ref),
    offline_workers: result.offlineWorkers,
    worker_offline: result.offlineReleased.map(ref),
  });
}

function badEnvironment(error: ConfigurationError): Response {
  return Response.json(
    { error_code: "bad_environment", detail: error.message, task_id: null },
    { status: 500 },
  );
}
