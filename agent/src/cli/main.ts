import { EXIT } from "@whilly/core";
import { claimChoice } from "../agents/dispatch.js";
import { findWorkingAgents, type WorkingAgents } from "../agents/setup.js";
import { checkPlan, type PlanCheck, type StatusCounts } from "../client/plan-check.js";
import { createTaskClient, type TaskClient } from "../client/task-client.js";
import { endOrphanedAttempts } from "../runner/attempt-record.js";
import { trizAgentOf } from "../triz/settings.js";
import { createCapabilities } from "../worker/capabilities.js";
import { runWorkerLoop } from "../worker/loop.js";
import { createPauseGate } from "../worker/pause.js";
import { sleep, withRetry } from "../worker/retry.js";
import { createTrizHook } from "../worker/triz-hook.js";
import type { AfterFail, ProgressEvent, RunAttempt } from "../worker/types.js";
import { parseWorkerArgs } from "./args.js";
import { WORKER_HELP } from "./help.js";
import { idleWatch } from "./idle.js";
import { terminalSafeIo, type WorkerIo } from "./io.js";
import { registerMain } from "./register.js";
import { progressReporter, reportWorkerError, statsLine } from "./report.js";
import { parseWorkerSettings, type WorkerSettings } from "./settings.js";
import { createHttpTransport, type HttpTransport } from "./transport.js";
import { workerVersion } from "./version.js";
import { checkWorkdir } from "./workdir.js";
import { claudeWorkerAttempt } from "./worker-attempt.js";

/**
 * The agents this worker advertises, found at start ({@link findWorkingAgents}); says on stderr which
 * were left out and, when it is more than Claude Code alone, what it advertises.
 * @throws {ConfigurationError} when the agent `--agent` or `--force-agent` names does not start.
 */
async function workingAgents(settings: WorkerSettings, io: WorkerIo): Promise<WorkingAgents> {
  const working = await findWorkingAgents(settings.agents, { env: settings.agentEnv, cwd: settings.workdir });
  for (const note of working.notes) io.err.write(`whilly-worker: ${note}\n`);
  const { tags } = settings.agents;
  if (working.agents.join() !== "claude" || tags.length > 0) {
    const named = tags.length === 0 ? "none" : tags.join(", ");
    io.err.write(`whilly-worker: agents ${working.agents.join(", ") || "none"}; tags ${named}\n`);
  }
  return working;
}

/**
 * A claim that comes back empty sooner than this (ms) means the control plane does not hold long polls;
 * the worker then waits out the rest before asking again, rather than spinning. A control plane that
 * long-polls answers 204 only after its wait, so the next claim goes out at once.
 */
export const MIN_IDLE_POLL_MS = 1000;

/** Seams for tests: the agent and the HTTP transport. */
export type WorkerMainOptions = {
  makeRunAttempt?: (settings: WorkerSettings, io: WorkerIo) => RunAttempt | Promise<RunAttempt>;
  makeTransport?: () => HttpTransport;
};

/**
 * Runs `whilly-worker <argv>` and returns its exit code; nothing here calls `process.exit`.
 * `whilly-worker register ...` registers a worker instead (see {@link registerMain}).
 * Checks that the plan exists, then claims its tasks from the control plane until `--once` or
 * `--max-iterations` ends the loop, a signal interrupts it (`io.interrupt`), the control plane refuses
 * the credentials, or (with a retry budget) stays unreachable. A stats line goes to stderr at the end.
 * @returns 0 the loop ended, 1 failure (including a control plane unreachable past the retry budget),
 *   2 usage, configuration, a plan the control plane does not store, or refused credentials,
 *   130 interrupted.
 */
export async function workerMain(
  argv: readonly string[],
  processIo: WorkerIo,
  options: WorkerMainOptions = {},
): Promise<number> {
  const io = terminalSafeIo(processIo);
  if (argv[0] === "register") return registerMain(argv.slice(1), io, options.makeTransport);
  let settings: WorkerSettings;
  let runAttempt: RunAttempt;
  let working: WorkingAgents;
  try {
    const flags = parseWorkerArgs(argv);
    if (flags.help) {
      io.out.write(WORKER_HELP);
      return EXIT.ok;
    }
    if (flags.version) {
      io.out.write(`whilly-worker ${workerVersion()}\n`);
      return EXIT.ok;
    }
    settings = parseWorkerSettings(flags, io.env, io.cwd);
    for (const warning of settings.warnings) io.err.write(`whilly-worker: warning: ${warning}\n`);
    checkWorkdir(settings.workdir);
    runAttempt = await (options.makeRunAttempt ?? claudeWorkerAttempt)(settings, io);
    working = await workingAgents(settings, io);
  } catch (error) {
    return reportWorkerError(io, error);
  }

  const transport = (options.makeTransport ?? createHttpTransport)();
  const client = createTaskClient({
    baseUrl: settings.controlUrl,
    fetch: transport.fetch,
    workerId: settings.workerId,
    token: settings.token,
  });
  const stop = new AbortController();
  const progress = progressReporter(io);
  const onInterrupt = () => {
    progress.onStop(signalName(io.interrupt));
    stop.abort();
  };
  if (io.interrupt?.aborted) onInterrupt();
  else io.interrupt?.addEventListener("abort", onInterrupt, { once: true });
  const timed = timedClaims(client);
  io.err.write(
    `whilly-worker: worker '${settings.workerId}' (${describeIdSource(settings)}) on plan '${settings.planId}' ` +
      `at ${settings.controlUrl}; agent in ${settings.workdir}\n`,
  );
  const idle = idleWatch({
    planId: settings.planId,
    bounded: settings.once || settings.maxIterations !== undefined,
    intervalMs: settings.progressIntervalMs,
    readCounts: () => readCounts(settings, transport, stop.signal),
    io,
  });
  let code: number = EXIT.ok;
  const orphans = endOrphanedAttempts(settings.stateDir);
  if (orphans.ended > 0) {
    io.err.write(
      `whilly-worker: ended ${orphans.ended} process(es) left running by ${orphans.attempts.length} attempt(s) of a worker that is gone\n`,
    );
  }
  try {
    const plan = await ensurePlan(settings, transport, stop.signal, io, progress.onEvent);
    if (plan === "stopped") return EXIT.interrupted;
    if (idle.nothingToDo(plan.found ? plan.counts : undefined)) return EXIT.ok;
    await runWorkerLoop({
      client: timed.client,
      planId: settings.planId,
      runAttempt,
      stopSignal: stop.signal,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      progressIntervalMs: settings.progressIntervalMs,
      maxTasks: settings.once ? 1 : undefined,
      maxIterations: settings.maxIterations,
      pause: createPauseGate({
        backoffMs: settings.limitBackoffMs,
        backoffMaxMs: settings.limitBackoffMaxMs,
      }),
      capabilities: createCapabilities({
        agents: working.agents,
        tags: settings.agents.tags,
        backoffMs: settings.limitBackoffMs,
        backoffMaxMs: settings.limitBackoffMaxMs,
      }),
      choice: claimChoice(settings.agents.defaults),
      onIdle: async () => {
        progress.onIdlePoll();
        const early = MIN_IDLE_POLL_MS - timed.sinceLastClaimMs();
        if (early > 0) await sleep(early, stop.signal);
        return !stop.signal.aborted && (await idle.onIdlePoll());
      },
      onProgress: (event) => {
        if (event.kind === "claimed") idle.onClaimed();
        progress.onEvent(event);
      },
      retryBudgetMs: settings.retryBudgetMs,
      afterFail: trizHook(settings, timed.client, progress.onEvent),
    });
    if (stop.signal.aborted) code = EXIT.interrupted;
  } catch (error) {
    code = reportWorkerError(io, error, UNREACHABLE_HINT);
  } finally {
    io.interrupt?.removeEventListener("abort", onInterrupt);
    io.err.write(statsLine(settings.workerId, progress.tally));
    await transport.close().catch(() => {});
  }
  return code;
}

/** The failure analysis after each FAIL when `WHILLY_TRIZ_ENABLED` is on (docs/triz.md); else none. */
function trizHook(
  settings: WorkerSettings,
  client: TaskClient,
  onProgress: (event: ProgressEvent) => void,
): AfterFail | undefined {
  if (!settings.triz.enabled) return undefined;
  const agent = trizAgentOf(settings.claude, {
    env: settings.agentEnv,
    secrets: settings.secrets,
    timeoutMs: settings.triz.timeoutMs,
    cwd: settings.workdir,
  });
  const adapters = settings.agents.registry.adapters;
  return createTrizHook({
    agent,
    adapterFor: (name) => adapters.find((adapter) => adapter.name === name),
    client,
    retryBudgetMs: settings.retryBudgetMs,
    onProgress,
  });
}

/** What to try when the control plane did not answer within the retry budget. */
const UNREACHABLE_HINT =
  "check --connect (WHILLY_CONTROL_URL) and that the control plane runs; --retry-budget (WHILLY_RETRY_BUDGET) sets how long the worker keeps retrying";

/**
 * Checks that the plan exists before the first claim, since a claim for a plan that is not stored is
 * answered "nothing ready" for ever. Retried like a claim while the control plane is unreachable; when
 * the read API gives no answer about the plan, a warning is printed and the worker goes on.
 * @returns what the control plane said, or `"stopped"` when a stop came first.
 * @throws {ConfigurationError} when the control plane says the plan is not stored.
 * @throws {TransportError} when the retry budget ran out.
 */
async function ensurePlan(
  settings: WorkerSettings,
  transport: HttpTransport,
  signal: AbortSignal,
  io: WorkerIo,
  emit: (event: ProgressEvent) => void,
): Promise<PlanCheck | "stopped"> {
  const check = () =>
    checkPlan({
      baseUrl: settings.controlUrl,
      fetch: transport.fetch,
      planId: settings.planId,
      token: settings.token,
      signal,
    });
  try {
    const result = await withRetry(check, {
      signal,
      budgetMs: settings.retryBudgetMs,
      onRetry: (error, delayMs) => emit({ kind: "retrying", what: "plan check", delayMs, error }),
    });
    if (!result.found) {
      io.err.write(
        `whilly-worker: warning: cannot check that plan '${settings.planId}' exists (${result.why}); claiming anyway\n`,
      );
    }
    return result;
  } catch (error) {
    if (signal.aborted) return "stopped";
    throw error;
  }
}

/**
 * The plan's task counts for the idle lines, asked once: `undefined` when the control plane cannot say
 * now (unreachable, no read API), since the claim loop decides nothing on a guess.
 */
async function readCounts(
  settings: WorkerSettings,
  transport: HttpTransport,
  signal: AbortSignal,
): Promise<StatusCounts | undefined> {
  try {
    const result = await checkPlan({
      baseUrl: settings.controlUrl,
      fetch: transport.fetch,
      planId: settings.planId,
      token: settings.token,
      signal,
    });
    return result.found ? result.counts : undefined;
  } catch {
    return undefined;
  }
}

/** The client, noting when each claim went out so an instant 204 can be told from a long poll's. */
function timedClaims(client: TaskClient) {
  let lastClaimAt = 0;
  const timed: TaskClient = {
    ...client,
    claim: (planId, claimOptions) => {
      lastClaimAt = performance.now();
      return client.claim(planId, claimOptions);
    },
  };
  return { client: timed, sinceLastClaimMs: () => performance.now() - lastClaimAt };
}

/** The signal's name the process passed as the abort reason (`SIGTERM`), else a plain word. */
function signalName(interrupt: AbortSignal | undefined): string {
  const reason: unknown = interrupt?.reason;
  return typeof reason === "string" ? reason : "stop signal";
}

function describeIdSource(settings: WorkerSettings): string {
  if (settings.workerIdFrom === "token") return "from the token";
  return settings.workerIdFrom === "flag" ? "from --worker-id" : "from WHILLY_WORKER_ID";
}
