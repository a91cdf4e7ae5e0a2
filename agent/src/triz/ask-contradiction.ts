import {
  buildContradictionPrompt,
  type JsonObject,
  type MicroUsd,
  readContradictionAnswer,
  secretValuesOf,
  type TaskSpec,
} from "@whilly/core";
import { askModel, type GenerationAgent } from "../generate/ask-model.js";

/** The most the failure analysis may take when `WHILLY_TRIZ_TIMEOUT` is unset: 25 s, as in whilly 4.x. */
export const DEFAULT_TRIZ_TIMEOUT_MS = 25_000;

/** The audit event types the failure analysis reports (whilly 4.x's names). */
export const TRIZ_EVENT_TYPES = { contradiction: "triz.contradiction", error: "triz.error" } as const;

/**
 * What the failure analysis found, as the event to report: `triz.contradiction` with
 * `{contradiction_type, reason}`, or `triz.error` with `{reason}` (`timeout`, `agent_missing`,
 * `malformed_answer`, `agent_failed`) and `problem`, a line for people; `undefined` for no
 * contradiction, or when the analysis was aborted. `costMicroUsd` is what the model call cost, to count
 * to the plan whatever came of it.
 */
export type ContradictionReport = {
  readonly event?: { readonly eventType: string; readonly detail: JsonObject } | undefined;
  readonly costMicroUsd: MicroUsd;
};

/**
 * Asks the agent, in its tool-less answer mode and within `agent.timeoutMs`, whether a task whose
 * attempt failed holds a technical or physical contradiction (docs/triz.md#on-a-failed-task). Fails
 * open: never rejects; a missing CLI, a timeout, a failed run or an answer that is not the agreed JSON
 * each give exactly one `triz.error` event.
 * @param signal ends the call (worker shutdown): no event then.
 */
export async function askContradiction(
  agent: GenerationAgent,
  task: Pick<TaskSpec, "id" | "description" | "acceptanceCriteria">,
  signal?: AbortSignal,
): Promise<ContradictionReport> {
  const prompt = buildContradictionPrompt(task, [...(agent.secrets ?? []), ...secretValuesOf(agent.env)]);
  let outcome: Awaited<ReturnType<typeof askModel>>["outcome"];
  try {
    ({ outcome } = await askModel(agent, prompt, { signal }));
  } catch (error) {
    return {
      event: failure("agent_failed", error instanceof Error ? error.message : String(error)),
      costMicroUsd: 0,
    };
  }
  const costMicroUsd = outcome.costMicroUsd;
  if (!outcome.ok) {
    if (outcome.reason === "aborted") return { costMicroUsd };
    const reason =
      outcome.reason === "timeout"
        ? "timeout"
        : outcome.reason === "agent_unavailable" || outcome.reason === "spawn_failed"
          ? "agent_missing"
          : "agent_failed";
    return { event: failure(reason, outcome.message), costMicroUsd };
  }
  const answer = readContradictionAnswer(outcome.resultText ?? "");
  if (answer.kind === "none") return { costMicroUsd };
  if (answer.kind === "malformed")
    return { event: failure("malformed_answer", answer.problem), costMicroUsd };
  return {
    event: {
      eventType: TRIZ_EVENT_TYPES.contradiction,
      detail: { contradiction_type: answer.contradictionType, reason: answer.reason },
    },
    costMicroUsd,
  };
}

function failure(reason: string, problem: string): { eventType: string; detail: JsonObject } {
  return { eventType: TRIZ_EVENT_TYPES.error, detail: { reason, problem } };
}
