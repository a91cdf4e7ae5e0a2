import { randomUUID } from "node:crypto";
import { formatUsd, type TaskPayload } from "@whilly/core";
import type { AgentAdapter } from "../agents/types.js";
import type { TaskClient } from "../client/task-client.js";
import type { GenerationAgent } from "../generate/ask-model.js";
import { askContradiction, type ContradictionReport } from "../triz/ask-contradiction.js";
import { asError } from "./replies.js";
import { type Backoff, withRetry } from "./retry.js";
import type { AfterFail, FailedWith, ProgressEvent } from "./types.js";

/** Options of {@link createTrizHook}. Durations are ms. */
export type TrizHookOptions = {
  /**
   * How the agent is asked; its `timeoutMs` bounds each question (`WHILLY_TRIZ_TIMEOUT`). Claude Code
   * unless `adapterFor` gives the failed attempt's own agent.
   */
  readonly agent: GenerationAgent;
  /**
   * The configured adapter named `agent` (the worker's registry), so the agent that failed the task is
   * the one asked; one without an answer mode (`cmd` without it) leaves Claude Code to answer.
   */
  readonly adapterFor?: ((agent: string) => AgentAdapter | undefined) | undefined;
  /** The loop's client: the worker that ran the task reports what was found. */
  readonly client: TaskClient;
  /** How long a report is retried; the drain's bound ends it sooner. For ever when undefined. */
  readonly retryBudgetMs?: number | undefined;
  readonly backoff?: Backoff | undefined;
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** What a finished question's report gets past the question's own bound at shutdown; default 5 s. */
  readonly reportAllowanceMs?: number | undefined;
  /** The question; {@link askContradiction} unless a test gives another. */
  readonly ask?: typeof askContradiction | undefined;
};

/** Time a finished question's report gets at shutdown, past the question's own bound (ms). */
const REPORT_ALLOWANCE_MS = 5_000;

/**
 * The failure analysis after a `FAIL` (docs/triz.md#on-a-failed-task): asks the agent, in the
 * background, whether the task holds a contradiction, and reports the finding or the error, with what
 * the question cost, through `POST /tasks/{id}/events` under one idempotency key per question. A
 * question that found no contradiction writes no event but still reports its cost. A failed report
 * is told as a `triz` progress event with its error; nothing is thrown.
 *
 * `drain` waits at most the question's timeout plus the agent's kill grace and a report allowance
 * (5 s), then aborts what is left: a question still running is stopped (the runner ends its process
 * group) and reports nothing.
 */
export function createTrizHook(options: TrizHookOptions): AfterFail {
  const ask = options.ask ?? askContradiction;
  const emit = options.onProgress ?? (() => {});
  const inFlight = new Set<Promise<void>>();
  const stop = new AbortController();

  async function analyse(task: TaskPayload, ran: FailedWith | undefined): Promise<void> {
    const asked = {
      id: task.id,
      description: task.description,
      acceptanceCriteria: task.acceptance_criteria,
    };
    const agent = askedAgent(options.agent, ran, options.adapterFor);
    const report: ContradictionReport = await ask(agent, asked, stop.signal);
    const eventType = report.event?.eventType;
    if (eventType === undefined && !(report.costMicroUsd > 0)) {
      if (!stop.signal.aborted) emit({ kind: "triz", task, outcome: "none" });
      return;
    }
    const event = {
      eventType: eventType ?? null,
      payload: report.event?.detail ?? {},
      costUsd: formatUsd(report.costMicroUsd),
      idempotencyKey: `triz:${randomUUID()}`,
    };
    await withRetry(() => options.client.reportEvent(task, event), {
      signal: stop.signal,
      budgetMs: options.retryBudgetMs,
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    emit({ kind: "triz", task, outcome: eventType ?? "none", detail: report.event?.detail });
  }

  return {
    start(task, ran) {
      const run: Promise<void> = analyse(task, ran)
        .catch((error) => emit({ kind: "triz", task, outcome: "unreported", error: asError(error) }))
        .finally(() => inFlight.delete(run));
      inFlight.add(run);
    },
    async drain() {
      if (inFlight.size === 0) return;
      const allowanceMs = options.reportAllowanceMs ?? REPORT_ALLOWANCE_MS;
      const boundMs = options.agent.timeoutMs + options.agent.killGraceMs + allowanceMs;
      const timer = setTimeout(() => stop.abort(), boundMs);
      try {
        while (inFlight.size > 0) await Promise.all([...inFlight]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The agent a question goes to: the failed attempt's own agent and model when this worker has an
 * adapter for it that answers without tools, else `base` (Claude Code) with the attempt's model when
 * the attempt ran on Claude Code.
 */
function askedAgent(
  base: GenerationAgent,
  ran: FailedWith | undefined,
  adapterFor: ((agent: string) => AgentAdapter | undefined) | undefined,
): GenerationAgent {
  const model = typeof ran?.model === "string" && ran.model !== "" ? ran.model : undefined;
  if (ran?.agent === undefined || ran.agent === "claude") return model ? { ...base, model } : base;
  const adapter = adapterFor?.(ran.agent);
  if (adapter === undefined || !adapter.answers) return base;
  return { ...base, adapter, model: model ?? adapter.defaultModel };
}

/** What the failure analysis found, or why it was not reported, in a few words. */
export function describeTriz(event: Extract<ProgressEvent, { kind: "triz" }>): string {
  if (event.error !== undefined) return `not reported (${event.error.message})`;
  const reason = event.detail?.reason;
  return typeof reason === "string" ? `${event.outcome} (${reason})` : event.outcome;
}
