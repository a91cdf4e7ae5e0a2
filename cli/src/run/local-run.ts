import { hostname } from "node:os";
import { endOrphanedAttempts, type GenerationAgent, type WorkerStats } from "@whilly/agent";
import {
  EXIT,
  PlanNotFound,
  type PlanRecord,
  type PlanSpec,
  redactingWriter,
  type TaskStore,
} from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { importProgress } from "../import-progress.js";
import { type Io, printWarning } from "../io.js";
import { readPlanFile } from "../plan-file.js";
import { localCapabilities } from "./capabilities.js";
import type { PlanRunner, RunAgents } from "./plan-runner.js";
import { clockTime, progressPrinter } from "./progress.js";
import { localWorkerId, processAlive, type RecoverOptions, recoverOrphanedClaims } from "./recover.js";
import { runSlots, type SlotsResult, slotWorkerIds } from "./slots.js";
import {
  type Integration,
  type RunExtras,
  type RunSummary,
  renderSummary,
  summarizeRun,
  summaryJson,
} from "./summary.js";
import { type RunUi, startRunUi } from "./ui-server.js";

export type { PlanRunner } from "./plan-runner.js";

/** Options of {@link runLocal}. Durations are ms. */
export type LocalRunOptions = {
  file?: string | undefined;
  planId?: string | undefined;
  maxTasks?: number | undefined;
  json: boolean;
  /** Claim slots: up to this many tasks run at once (`--concurrency`); 1 when undefined. */
  concurrency?: number | undefined;
  /** `--max-attempts`: stored as the plan's attempt limit before any claim. */
  maxAttempts?: number | undefined;
  /** `--no-wait`: exit `EXIT.waiting` instead of waiting for a provider limit or a retry's backoff. */
  noWait?: boolean | undefined;
  /** Builds what runs the plan's attempts; the CLI passes Claude Code in worktrees, tests a fake agent. */
  makeRunner: (plan: PlanRecord) => Promise<PlanRunner> | PlanRunner;
  /** Poll period while another process's tasks are still running (ms). */
  idlePollMs?: number;
  /**
   * Where running attempts are recorded (`.whilly/`): what attempts of a run that is gone left running is
   * ended before any task runs. None when undefined.
   */
  stateDir?: string | undefined;
  /** Makes `stateDir` (kept out of git) once the command line and file were found good. */
  prepareStateDir?: (() => void) | undefined;
  /** How the failure analysis asks after each FAIL (`WHILLY_TRIZ_ENABLED`); none when undefined. */
  trizAgent?: GenerationAgent | undefined;
  /** `--ui`: serve the dashboard on this port (0: any free one) while the run goes; none when undefined. */
  uiPort?: number | undefined;
};

/**
 * `whilly run` in one process: import or resume the plan, recover claims an earlier run left behind,
 * then claim and run tasks through the in-process control plane, up to `concurrency` at once (each slot
 * a worker loop with its own worker id, all sharing one pause for provider limits), until no task can
 * be claimed any more, take the work to the user's branch, and print a summary.
 * @returns 0 when every task is DONE or SKIPPED, or when `--max-tasks` stopped a run whose tasks all
 *   succeeded; 75 when `--no-wait` left work waiting on a limit or a retry; 1 otherwise; 130 when
 *   interrupted.
 */
export async function runLocal(ctx: CliContext, options: LocalRunOptions): Promise<number> {
  const { settings } = ctx;
  // What a run prints on stdout (the summary, with agents' messages) hides secrets too; stderr already does.
  const io = { ...ctx.io, out: redactingWriter(ctx.io.out, settings.secrets) };
  // The file is read before the store is opened, so a bad file or flag leaves nothing behind.
  const spec = await readSpec(io, options);
  const store = await ctx.store({ own: true });
  const loaded = await loadPlan(ctx, store, spec, options.planId, options.maxAttempts);
  if (options.maxAttempts !== undefined) await store.setPlanMaxAttempts(loaded.id, options.maxAttempts);
  const plan = (await store.getPlan(loaded.id)) ?? loaded;
  // Started once the plan is stored, so a bad file or flag leaves nothing listening.
  const ui = options.uiPort === undefined ? undefined : await startUi(ctx, store, options.uiPort, plan.id);
  try {
    const host = hostname();
    const baseId = settings.workerId ?? localWorkerId(host, process.pid);
    const workerIds = slotWorkerIds(baseId, options.concurrency ?? 1);
    const exclusive = settings.databaseUrl === undefined;
    const { stateDir } = options;
    const endOrphans = () => {
      if (stateDir !== undefined) reportOrphans(ctx, endOrphanedAttempts(stateDir));
    };
    const recover = recoverer(store, io, {
      selfIds: workerIds,
      hostname: host,
      exclusive,
      isAlive: processAlive,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      // On a shared database a same-host run may die while this one runs: its agents are ended before
      // its tasks are taken over (only attempts whose runner process is gone are ended).
      endAttemptsOfGoneRuns: endOrphans,
    });
    options.prepareStateDir?.();
    endOrphans();
    await recover();
    for (const workerId of workerIds) await store.upsertWorker({ workerId, hostname: host });

    const tasks = await store.listTasks(plan.id);
    const open = tasks.filter((t) => t.status !== "DONE" && t.status !== "SKIPPED").length;
    const workers = workerIds.length === 1 ? `worker ${baseId}` : `${workerIds.length} workers ${baseId}…`;
    io.err.write(`whilly run: plan '${plan.id}', ${tasks.length} task(s), ${open} to do; ${workers}\n`);
    const runner = await options.makeRunner(plan);
    const progress = progressPrinter(io, open);
    const stop = stopOnInterrupt(io.interrupt);
    let slots: SlotsResult | undefined;
    try {
      slots = await runSlots({
        store,
        planId: plan.id,
        settings,
        workerIds,
        runner,
        stopSignal: stop.signal,
        maxTasks: options.maxTasks,
        noWait: options.noWait === true,
        idlePollMs: options.idlePollMs ?? 1000,
        recover: exclusive ? undefined : recover,
        onProgress: progress.onEvent,
        io,
        trizAgent: options.trizAgent,
      });
    } finally {
      stop.dispose();
    }
    const integration = stop.signal.aborted ? undefined : await finishQuietly(ctx, runner);

    const summary = await summaryOf(store, plan, { keptPath: runner.keptPath, integration }, runner.agents);
    io.out.write(
      options.json ? `${JSON.stringify(summaryJson(summary), null, 2)}\n` : renderSummary(summary, io),
    );
    if (stop.signal.aborted) return EXIT.interrupted;
    if (summary.ok) return EXIT.ok;
    if (leftWaiting(ctx, options.noWait === true ? slots.pausedUntil : undefined) || slots.retriesLeftWaiting)
      return EXIT.waiting;
    return stoppedByMaxTasks(ctx, options.maxTasks, slots.stats, summary) ? EXIT.ok : EXIT.failed;
  } finally {
    await ui?.close();
  }
}

/**
 * Starts the run's dashboard (`--ui`) and says once, on stderr, where to open it.
 * @throws {UsageError} when the port is taken, naming `--port` and `WHILLY_UI_PORT`.
 */
async function startUi(ctx: CliContext, store: Store, port: number, planId: string): Promise<RunUi> {
  const { signInTtlMs } = ctx.settings.ui;
  const ui = await startRunUi({ store, port, planId, signInTtlMs, env: ctx.io.env }).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      throw new UsageError(`the dashboard's port ${port} is in use (--port or WHILLY_UI_PORT)`, {
        hint: "give another --port, or --port 0 for any free one",
      });
    },
  );
  ctx.io.err.write(`dashboard: ${ui.link}\n`);
  return ui;
}

/**
 * A stop for the claim loop that follows `interrupt`. A Ctrl-C that came earlier (while the store was
 * opened or the plan imported) has already fired its event, so an aborted `interrupt` stops at once.
 */
function stopOnInterrupt(interrupt: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  if (interrupt?.aborted) stop.abort();
  else interrupt?.addEventListener("abort", onInterrupt, { once: true });
  return { signal: stop.signal, dispose: () => interrupt?.removeEventListener("abort", onInterrupt) };
}

/**
 * Takes the plan's work to the user's branch; a git failure there is a warning, not the run's end: the
 * summary still prints, and the work stays on the integration branch.
 */
async function finishQuietly(ctx: CliContext, runner: PlanRunner): Promise<Integration | undefined> {
  try {
    return await runner.finish?.();
  } catch (error) {
    printWarning(
      ctx.io,
      `could not take the work to your branch: ${error instanceof Error ? error.message : String(error)}; it stays on the integration branch (docs/worktrees.md)`,
    );
    return undefined;
  }
}

/** The plan file's plan, checked against `--plan`; `undefined` for a stored plan. */
async function readSpec(io: Io, options: LocalRunOptions): Promise<PlanSpec | undefined> {
  if (options.file === undefined) return undefined;
  const spec = await readPlanFile(options.file, io.cwd, (m) => printWarning(io, m));
  if (options.planId !== undefined && options.planId !== spec.id) {
    throw new UsageError(`--plan '${options.planId}' does not match the file's plan id '${spec.id}'`, {
      hint: `run the file alone (whilly run ${options.file}), or a stored plan with --plan alone`,
    });
  }
  return spec;
}

/** Takes back what runs that are gone left claimed, saying so; resolves to the count. */
function recoverer(store: TaskStore, io: Pick<Io, "err">, options: RecoverOptions): () => Promise<number> {
  return async () => {
    const recovered = await recoverOrphanedClaims(store, options);
    if (recovered.length > 0) {
      io.err.write(
        `whilly run: returned ${recovered.length} task(s) left claimed by a run that is gone: ${recovered.join(", ")}\n`,
      );
    }
    return recovered.length;
  };
}

/** The plan's summary from the store, as the run leaves it. */
async function summaryOf(
  store: TaskStore,
  plan: PlanRecord,
  extras: RunExtras,
  agents: RunAgents | undefined,
): Promise<RunSummary> {
  const finalPlan = (await store.getPlan(plan.id)) ?? plan;
  const [finalTasks, blocked, events, waiting] = await Promise.all([
    store.listTasks(plan.id),
    store.listBlocked(plan.id),
    store.listEvents(plan.id, { limit: 1_000_000 }),
    store.listWaiting(plan.id, { capabilities: [localCapabilities(agents)] }),
  ]);
  return summarizeRun(finalPlan, finalTasks, blocked, events, { ...extras, waiting });
}

/** Says that `--no-wait` left work waiting on a provider limit until `pausedUntil` (ms); false when none. */
function leftWaiting(ctx: CliContext, pausedUntil: number | undefined): boolean {
  if (pausedUntil === undefined) return false;
  ctx.io.err.write(
    `whilly run: the work left waits on a provider limit until ${clockTime(new Date(pausedUntil))}; not waiting (--no-wait): run again after it\n`,
  );
  return true;
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
  const ran = stats.completed + stats.failed + stats.retried;
  if (ran < maxTasks) return false;
  const left = summary.tasks.filter((t) => t.status !== "DONE" && t.status !== "SKIPPED").length;
  ctx.io.err.write(
    `whilly run: stopped after ${ran} task(s) (--max-tasks ${maxTasks}); ${left} task(s) left; run again to continue\n`,
  );
  return stats.failed === 0 && stats.retried === 0 && stats.lost === 0;
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
  maxAttempts: number | undefined,
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
    warnPlanChanged(ctx.io, spec, result.plan, result.planChanged, maxAttempts);
  }
  if (result.inserted.length > 0 && !result.planCreated) {
    ctx.io.err.write(`whilly run: added ${result.inserted.length} new task(s) from the file\n`);
  }
  return result.plan;
}

/**
 * Warns that the file's plan fields differ from the stored plan's. `max_attempts` has a fix that keeps
 * the plan (`--max-attempts N`), so it is named apart, with the stored value, and not at all when
 * `--max-attempts` is given (it is stored before any claim); the other fields only a hard reset changes.
 */
function warnPlanChanged(
  io: Io,
  spec: PlanSpec,
  stored: PlanRecord,
  changed: readonly string[],
  maxAttempts: number | undefined,
): void {
  const others = changed.filter((field) => field !== "max_attempts");
  if (changed.includes("max_attempts") && maxAttempts === undefined) {
    const storedLimit = stored.maxAttempts === undefined ? "default" : String(stored.maxAttempts);
    printWarning(
      io,
      `the file's max_attempts (${spec.maxAttempts ?? "none"}) differs from the stored plan's ${storedLimit}; running with ${storedLimit} (give --max-attempts N to run with N)`,
    );
  }
  if (others.length > 0) {
    printWarning(
      io,
      `the file's ${others.join(", ")} differ from the stored plan's; running with the stored ones (whilly plan reset --hard '${spec.id}' --yes, then run again, to use the file)`,
    );
  }
}
