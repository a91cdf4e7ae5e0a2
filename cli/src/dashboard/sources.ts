import {
  ConfigurationError,
  PlanNotFound,
  parseUsd,
  type TaskPayload,
  TransportError,
  type WorkerListResponse,
} from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import type { EventView } from "../events/event-view.js";
import { printRemoteEvents, type RemoteSource, request } from "../events/follow-remote.js";
import { printStoreEvents } from "../events/follow-store.js";
import type { DashboardSnapshot, SnapshotTask } from "./model.js";

/** Where the dashboard reads a plan: a snapshot on demand, and the audit log as it grows. */
export interface DashboardSource {
  /** The ids and names of the stored plans. */
  listPlans(): Promise<{ id: string; name: string }[]>;
  /** The plan, its tasks and (when known) workers now. @throws {PlanNotFound} */
  snapshot(planId: string): Promise<DashboardSnapshot>;
  /**
   * Calls `emit` for every event of the plan from the log's start; with `follow`, then for each new one
   * until `signal` aborts.
   */
  events(
    planId: string,
    emit: (event: EventView) => void,
    follow: boolean,
    signal: AbortSignal,
  ): Promise<void>;
}

/** Reads the store itself (embedded or `WHILLY_DATABASE_URL`); `pollMs` bounds a missed event signal's delay. */
export function storeSource(store: Store, pollMs: number): DashboardSource {
  return {
    async listPlans() {
      return (await store.listPlans()).map((p) => ({ id: p.id, name: p.name }));
    },
    async snapshot(planId) {
      const plan = (await store.listPlans()).find((p) => p.id === planId);
      if (!plan) throw new PlanNotFound(planId);
      const [tasks, workers, pause] = await Promise.all([
        store.listTasks(planId),
        store.listWorkers(),
        store.readWorkersPause(),
      ]);
      return {
        plan: {
          id: plan.id,
          name: plan.name,
          budgetMicroUsd: plan.budgetMicroUsd ?? null,
          spentMicroUsd: plan.spentMicroUsd,
        },
        tasks: tasks.map((t) => ({
          id: t.id,
          status: t.status,
          priority: t.priority,
          description: t.description,
          claimedBy: t.claimedBy ?? null,
          attempts: t.attempts,
          version: t.version,
          claimedAt: t.claimedAt?.toISOString() ?? null,
          spentMicroUsd: t.spentMicroUsd,
          progress: t.progress,
        })),
        workers: workers.map((w) => ({
          id: w.workerId,
          lastHeartbeat: w.lastHeartbeat.toISOString(),
          online: w.status === "online",
        })),
        workersPaused: pause !== undefined,
      };
    },
    async events(planId, emit, follow, signal) {
      await printStoreEvents(store, { planId, follow, signal }, pollMs, emit);
    },
  };
}

type PlanPayload = { id: string; name: string; budget_usd: string | null; spent_usd: string };

/**
 * Reads a control plane (`--connect`) with a reader's token: the read API for snapshots (the plan, its
 * tasks with their claim times, spend and progress, and `GET /api/v1/workers` for the workers and
 * their pause), its event stream for the log (reconnecting after `retryMs` when lost). A server older
 * than `GET /api/v1/workers` (404) or its task fields leaves those to the events.
 */
export function remoteDashboardSource(remote: RemoteSource, retryMs: number): DashboardSource {
  const root = `${remote.url.replace(/\/+$/, "")}/api/v1`;
  const base = `${root}/plans`;
  const get = async <T>(path: string): Promise<T> =>
    (await (await request(remote, `${base}${path}`, undefined)).json()) as T;
  const workers = async (): Promise<WorkerListResponse | undefined> => {
    try {
      return (await (await request(remote, `${root}/workers`, undefined)).json()) as WorkerListResponse;
    } catch (error) {
      if (error instanceof TransportError && error.status === 404) return undefined;
      throw error;
    }
  };
  return {
    async listPlans() {
      return (await get<{ plans: PlanPayload[] }>("")).plans.map((p) => ({ id: p.id, name: p.name }));
    },
    async snapshot(planId) {
      const id = encodeURIComponent(planId);
      const [plan, { tasks }, fleet] = await Promise.all([
        get<PlanPayload>(`/${id}`),
        get<{ tasks: TaskPayload[] }>(`/${id}/tasks`),
        workers(),
      ]);
      return {
        plan: {
          id: plan.id,
          name: plan.name,
          budgetMicroUsd: plan.budget_usd === null ? null : (parseUsd(plan.budget_usd) ?? null),
          spentMicroUsd: parseUsd(plan.spent_usd) ?? 0,
        },
        tasks: tasks.map(
          (t): SnapshotTask => ({
            id: t.id,
            status: t.status,
            priority: t.priority,
            description: t.description,
            claimedBy: t.claimed_by,
            attempts: t.attempts,
            version: t.version,
            claimedAt: t.claimed_at,
            spentMicroUsd: t.spent_usd === undefined ? undefined : (parseUsd(t.spent_usd) ?? undefined),
            progress: t.progress ?? undefined,
          }),
        ),
        workers: fleet?.workers.map((w) => ({
          id: w.worker_id,
          lastHeartbeat: w.last_heartbeat,
          online: w.status === "online",
        })),
        workersPaused: fleet?.pause.paused,
      };
    },
    async events(planId, emit, follow, signal) {
      await printRemoteEvents(remote, { planId, follow, signal }, retryMs, emit);
    },
  };
}

/**
 * The plan to show: `--plan` when given, else the only stored plan.
 * @throws {ConfigurationError} when there is no plan, or several and no `--plan` (naming them).
 */
export async function choosePlan(source: DashboardSource, chosen: string | undefined): Promise<string> {
  if (chosen !== undefined) return chosen;
  const plans = await source.listPlans();
  if (plans.length === 1 && plans[0]) return plans[0].id;
  if (plans.length === 0) {
    throw new ConfigurationError("there is no plan to show", {
      hint: "import one with whilly plan import FILE",
    });
  }
  const ids = plans.slice(0, 10).map((p) => p.id);
  throw new ConfigurationError(`there are ${plans.length} plans; name one with --plan`, {
    hint: `e.g. whilly dashboard --plan ${ids[0]} (plans: ${ids.join(", ")}${plans.length > 10 ? ", ..." : ""})`,
  });
}
