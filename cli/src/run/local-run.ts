import { hostname } from "node:os";
import {
  createTaskClient,
  endOrphanedAttempts,
  type RunAttempt,
  runWorkerLoop,
  sleep,
  type WorkerStats,
} from "@whilly/agent";
import {
  EXIT,
  PlanNotFound,
  type PlanRecord,
  type PlanSpec,
  redactingWriter,
  type TaskStore,
} from "@whilly/core";
import { createApp, inProcessAuth } from "@whilly/worker-api";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { importProgress } from "../import-progress.js";
import { printWarning } from "../io.js";
import { readPlanFile } from "../plan-file.js";
import { progressPrinter } from "./progress.js";
import { localWorkerId, processAlive, recoverOrphanedClaims } from "./recover.js";
import { type RunSummary, renderSummary, summarizeRun, summaryJson } from "./summary.js";

/** Options of {@link runLocal}. Durations are ms. */
export type LocalRunOptions = {
  file?: string | undefined;
  planId?: string | undefined;
  maxTasks?: number | undefined;
  json: boolean;
  /** Builds the agent attempt runner; the CLI passes Claude Code, tests a fake agent. */
  makeRunAttempt: (cwd: string) => RunAttempt;
  /** Poll period while another process's tasks are still running (ms). */
  idlePollMs?: number;
  /**
   * Where running attempts are recorded (`.whilly/`): what attempts of a run that is gone left running is
   * ended before any task runs. None when undefined.
   */
  stateDir?: string | undefined;
  /** Makes `stateDir` (kept out of git) once the command line and file were found good. */
  prepareStateDir?: (() => void) | undefined;
};

/**
 * `whilly run` in one process: import or resume the plan, recover claims an earlier run left behind,
 * then claim and run tasks one at a time through the in-process control plane until no task can be
 * claimed any more, and print a summary.
 * @returns 0 when every task is DONE or SKIPPED, or when `--max-tasks` stopped a run whose tasks all
 *   succeeded; 1 otherwise; 130 when interrupted.
 */
export async function runLocal(ctx: CliContext, options: LocalRunOptions): Promise<number> {
  const { settings } = ctx;
  // What a run prints on stdout (the summary, with agents' messages) hides secrets too; stderr already does.
  const io = { ...ctx.io, out: redactingWriter(ctx.io.out, settings.secrets) };
  // The file is read before the store is opened, so a bad file or flag leaves nothing behind.
  const spec =
    options.file === undefined
      ? undefined
      : await readPlanFile(options.file, io.cwd, (m) => printWarning(io, m));
  if (spec !== undefined && options.planId !== undefined && options.planId !== spec.id) {
    throw new UsageError(`--plan '${options.planId}' does not match the file's plan id '${spec.id}'`, {
      hint: `run the file alone (whilly run ${options.file}), or a stored plan with --plan alone`,
    });
  }
  const store = await ctx.store();
  const plan = await loadPlan(ctx, store, spec, options.planId);
  const host = hostname();
  const workerId = settings.workerId ?? localWorkerId(host, process.pid);
  const exclusive = settings.databaseUrl === undefined;
  const recover = async () => {
    const recovered = await recoverOrphanedClaims(store, {
      selfId: workerId,
      hostname: host,
      exclusive,
      isAlive: processAlive,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
    });
    if (recovered.length > 0) {
      io.err.write(
        `whilly run: returned ${recovered.length} task(s) left claimed by a run that is gone: ${recovered.join(", ")}\n`,
      );
    }
    return recovered.length;
  };
  options.prepareStateDir?.();
  if (options.stateDir !== undefined) reportOrphans(ctx, endOrphanedAttempts(options.stateDir));
  await recover();
  await store.upsertWorker({ workerId, hostname: host });

  const app = createApp({
    withStore: (use) => use(store),
    auth: inProcessAuth,
    secrets: settings.secrets,
    settings: { leaseMs: settings.leaseMs, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
  const client = createTaskClient({
    baseUrl: "http://whilly.local",
    fetch: (url, init) => Promise.resolve(app.request(url, init)),
    workerId,
  });

  const tasks = await store.listTasks(plan.id);
  const open = tasks.filter((t) => t.status !== "DONE" && t.status !== "SKIPPED").length;
  io.err.write(`whilly run: plan '${plan.id}', ${tasks.length} task(s), ${open} to do; worker ${workerId}\n`);
  const progress = progressPrinter(io, open);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  io.interrupt?.addEventListener("abort", onInterrupt, { once: true });
  let stats: WorkerStats | undefined;
  try {
    stats = await runWorkerLoop({
      client,
      planId: plan.id,
      runAttempt: options.makeRunAttempt(io.cwd),
      stopSignal: stop.signal,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      progressIntervalMs: settings.progressIntervalMs,
      maxTasks: options.maxTasks,
      // On a shared database a run that died moments ago still looks alive at start (its heartbeat is
      // fresh); with no `whilly server` sweeping, only this wait can notice it fall silent later.
      onIdle: async () => {
        if (!exclusive && (await recover()) > 0) return true;
        return othersStillRunning(store, plan.id, workerId, options.idlePollMs ?? 1000, stop.signal);
      },
      onProgress: progress.onEvent,
    });
  } finally {
    io.interrupt?.removeEventListener("abort", onInterrupt);
  }

  const finalPlan = (await store.getPlan(plan.id)) ?? plan;
  const [finalTasks, blocked, events] = await Promise.all([
    store.listTasks(plan.id),
    store.listBlocked(plan.id),
    store.listEvents(plan.id, { limit: 1_000_000 }),
  ]);
  const summary = summarizeRun(finalPlan, finalTasks, blocked, events);
  io.out.write(
    options.json ? `${JSON.stringify(summaryJson(summary), null, 2)}\n` : renderSummary(summary, io),
  );
  if (stop.signal.aborted) return EXIT.interrupted;
  if (summary.ok) return EXIT.ok;
  return stoppedByMaxTasks(ctx, options.maxTasks, stats, summary) ? EXIT.ok : EXIT.failed;
}

/**
 * When `--max-tasks` ended the run with tasks left, says so on stderr. The limit is the user's request,
 * not a failure: the run counts as ok (exit 0) when every task it ran is DONE.
 * @returns true when the run stopped at the limit and none of its attempts failed or was lost.
 */
function stoppedByMaxTasks(
  ctx: CliContext,
  maxTasks: number | undefined,
  stats: WorkerStats | undefined,
  summary: RunSummary,
): boolean {
  if (maxTasks === undefined || stats === undefined) return false;
  const ran = stats.completed + stats.failed;
  if (ran < maxTasks) return false;
  const left = summary.tasks.filter((t) => t.status !== "DONE" && t.status !== "SKIPPED").length;
  ctx.io.err.write(
    `whilly run: stopped after ${ran} task(s) (--max-tasks ${maxTasks}); ${left} task(s) left; run again to continue\n`,
  );
  return stats.failed === 0 && stats.lost === 0;
}

function reportOrphans(ctx: CliContext, report: ReturnType<typeof endOrphanedAttempts>): void {
  if (report.ended === 0) return;
  ctx.io.err.write(
    `whilly run: ended ${report.ended} process(es) left running by ${report.attempts.length} attempt(s) of a run that is gone\n`,
  );
}

/** Imports or resumes the file's plan, or looks up the stored plan `planId` when there is no file. */
async function loadPlan(
  ctx: CliContext,
  store: TaskStore,
  spec: PlanSpec | undefined,
  planId: string | undefined,
): Promise<PlanRecord> {
  if (spec === undefined) {
    const plan = await store.getPlan(planId ?? "");
    if (!plan) throw new PlanNotFound(planId ?? "");
    return plan;
  }
  const result = await store.importPlan(spec, importProgress(ctx.io, spec.id));
  if (!result.planCreated) {
    ctx.io.err.write(`whilly run: resuming stored plan '${spec.id}'\n`);
    if (result.changed.length > 0) {
      printWarning(
        ctx.io,
        `the file's tasks differ from the stored plan for ${result.changed.join(", ")}; running the stored tasks (whilly plan reset --hard '${spec.id}' --yes, then run again, to use the file)`,
      );
    }
    if (result.planChanged.length > 0) {
      printWarning(
        ctx.io,
        `the file's ${result.planChanged.join(", ")} differ from the stored plan's; running with the stored ones (whilly plan reset --hard '${spec.id}' --yes, then run again, to use the file)`,
      );
    }
  }
  if (result.inserted.length > 0 && !result.planCreated) {
    ctx.io.err.write(`whilly run: added ${result.inserted.length} new task(s) from the file\n`);
  }
  return result.plan;
}

/**
 * Local mode ends when nothing can be claimed any more. If another process still holds tasks of this
 * plan (a shared Postgres), their completion may make more tasks ready, so wait and claim again.
 */
async function othersStillRunning(
  store: TaskStore,
  planId: string,
  selfId: string,
  pollMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const tasks = await store.listTasks(planId);
  const running = tasks.some(
    (t) => (t.status === "CLAIMED" || t.status === "IN_PROGRESS") && t.claimedBy !== selfId,
  );
  if (!running) return false;
  await sleep(pollMs, signal);
  return !signal.aborted;
}
