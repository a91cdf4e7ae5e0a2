import {
  AGENT_UNAVAILABLE_HINTS,
  type AgentOutcome,
  AgentUnavailable,
  answerMarkdown,
  buildPlanPrompt,
  buildPrdPrompt,
  GenerationFailed,
  type GenerationSource,
  type JsonObject,
  type MicroUsd,
  type PlanSpec,
  type PreviousAnswer,
  readPlanAnswer,
  secretValuesOf,
  type UntrustedPiece,
} from "@whilly/core";
import { askModel, type GenerationAgent } from "./ask-model.js";

/** How many answers generation asks for at most: the first, and one more with the problems quoted. */
export const PLAN_TRIES = 2;

/** What generation reports as it goes, for a progress line. `what` is the document asked for. */
export type GenerationProgress =
  | { readonly kind: "asking"; readonly what: "plan" | "prd"; readonly attempt: number; readonly of: number }
  | { readonly kind: "waiting"; readonly what: "plan" | "prd"; readonly elapsedMs: number }
  | {
      readonly kind: "answered";
      readonly what: "plan" | "prd";
      readonly attempt: number;
      readonly costMicroUsd: MicroUsd;
      readonly durationMs: number;
    }
  /** The answer was not a valid plan; `problems` are quoted to the model in the next try, if any. */
  | { readonly kind: "rejected"; readonly attempt: number; readonly problems: readonly string[] };

/** Options every generation call takes. */
export type GenerationOptions = {
  readonly agent: GenerationAgent;
  /** Stops the agent (its whole process group); the call then fails with reason `aborted`. */
  readonly signal?: AbortSignal | undefined;
  /** Called as generation goes; must not throw. */
  readonly onProgress?: ((event: GenerationProgress) => void) | undefined;
};

/** A generated plan: validated, with its plan-file form and what it cost. */
export type GeneratedPlan = {
  readonly plan: PlanSpec;
  /** The plan-file object (`plan_id`, `origin`, `tasks`, ...), as `whilly plan import` would read it. */
  readonly document: JsonObject;
  /** Warnings worth showing (fields dropped from the answer, test steps that read as prose). */
  readonly warnings: readonly string[];
  /** Answers asked for: 1, or 2 when the first was not valid. */
  readonly tries: number;
  /** What the model calls cost, µUSD. */
  readonly costMicroUsd: MicroUsd;
};

/**
 * Turns outside text into a valid plan (docs/init.md#plan-generation): asks the agent CLI, with every
 * tool disabled, in a scratch directory and with only the model's environment, for the plan JSON; reads
 * the answer with the plan parser, the cycle check and the decision gate (`readPlanAnswer`); and when
 * the answer is not valid asks once more, quoting it and its problems exactly. Every piece of `input`
 * is fenced as untrusted data in the prompt, control characters stripped, secrets redacted, cut to its
 * cap with a mark. Stores nothing: the caller checks, before calling, that its store is reachable and
 * `planId` free, so no token is spent on a plan that cannot be stored.
 * @param input.input the text, as one or more pieces (an issue's title, body and comments).
 * @param input.source recorded as the plan's `origin`.
 * @param input.fields more top-level plan fields (`prd_file`, `github_issue_ref`).
 * @throws {GenerationFailed} when the agent's run fails (`reason` its failure reason, `aborted` on
 *   `signal`) or its last answer is still not a valid plan (`invalid_answer`, with the problems).
 * @throws {AgentUnavailable} when the agent cannot run here (not installed, not logged in).
 * @throws {InvalidInput} when the text makes a prompt too long for one command-line argument.
 */
export async function generatePlan(
  input: GenerationOptions & {
    readonly input: readonly UntrustedPiece[];
    readonly source: GenerationSource;
    readonly planId: string;
    readonly fields?: JsonObject | undefined;
  },
): Promise<GeneratedPlan> {
  const secrets = [...(input.agent.secrets ?? []), ...secretValuesOf(input.agent.env)];
  let previous: PreviousAnswer | undefined;
  let cost = 0;
  for (let attempt = 1; attempt <= PLAN_TRIES; attempt += 1) {
    const prompt = buildPlanPrompt({
      pieces: input.input,
      secrets,
      attempt: { number: attempt, of: PLAN_TRIES },
      previous,
    });
    const outcome = await ask(input, "plan", prompt, attempt, PLAN_TRIES);
    cost += outcome.costMicroUsd;
    const answer = outcome.resultText ?? "";
    const read = readPlanAnswer(answer, { planId: input.planId, origin: input.source, fields: input.fields });
    if (read.ok) {
      return {
        plan: read.plan,
        document: read.document,
        warnings: read.warnings,
        tries: attempt,
        costMicroUsd: cost,
      };
    }
    report(input, { kind: "rejected", attempt, problems: read.problems });
    previous = { answer, problems: read.problems };
  }
  const problems = previous?.problems ?? [];
  throw new GenerationFailed(
    `the model's answers did not make a valid plan after ${PLAN_TRIES} tries: ${problems.join("; ")}`,
    "invalid_answer",
    problems,
    previous?.answer,
    {
      hint: "run again (a model's answer differs each time), or fix the answer by hand and import it with whilly plan import",
    },
  );
}

/**
 * Writes a PRD (Markdown) from an idea and, from the interactive wizard, a person's answers: one call
 * of the agent CLI under the same rules as {@link generatePlan}, every piece fenced as untrusted data.
 * @returns the Markdown (a code fence around the whole answer removed) and what the call cost, µUSD.
 * @throws {GenerationFailed} when the run fails or the answer is empty (`invalid_answer`).
 * @throws {AgentUnavailable} when the agent cannot run here.
 */
export async function generatePrd(
  input: GenerationOptions & { readonly input: readonly UntrustedPiece[] },
): Promise<{ readonly markdown: string; readonly costMicroUsd: MicroUsd }> {
  const secrets = [...(input.agent.secrets ?? []), ...secretValuesOf(input.agent.env)];
  const outcome = await ask(input, "prd", buildPrdPrompt({ pieces: input.input, secrets }), 1, 1);
  const markdown = answerMarkdown(outcome.resultText ?? "");
  if (markdown === "") {
    throw new GenerationFailed(
      "the model answered with an empty PRD",
      "invalid_answer",
      ["empty answer"],
      "",
    );
  }
  return { markdown, costMicroUsd: outcome.costMicroUsd };
}

/** One call: progress around it, and a failed run turned into the error that says what to do. */
async function ask(
  options: GenerationOptions,
  what: "plan" | "prd",
  prompt: string,
  attempt: number,
  of: number,
): Promise<AgentOutcome> {
  report(options, { kind: "asking", what, attempt, of });
  const { outcome } = await askModel(options.agent, prompt, {
    signal: options.signal,
    onWaiting: (elapsedMs) => report(options, { kind: "waiting", what, elapsedMs }),
  });
  if (outcome.reason === "agent_unavailable") {
    const kind = outcome.unavailable ?? "auth";
    throw new AgentUnavailable(outcome.message, { hint: AGENT_UNAVAILABLE_HINTS[kind] });
  }
  if (!outcome.ok) {
    throw new GenerationFailed(
      `asking the model for a ${what === "plan" ? "plan" : "PRD"} failed: ${outcome.message}`,
      outcome.reason ?? "is_error",
      [],
      outcome.resultText ?? undefined,
      { hint: failureHint(outcome) },
    );
  }
  report(options, {
    kind: "answered",
    what,
    attempt,
    costMicroUsd: outcome.costMicroUsd,
    durationMs: outcome.durationMs,
  });
  return outcome;
}

function failureHint(outcome: AgentOutcome): string | undefined {
  switch (outcome.reason) {
    case "timeout":
      return "the model took longer than the generation timeout (WHILLY_GENERATE_TIMEOUT); raise it or run again";
    case "rate_limited":
      return "the provider refused for a limit; run again once it resets";
    case "aborted":
      return undefined;
    default:
      return "run again; if it keeps failing, run `claude -p hello` to check Claude Code works here";
  }
}

function report(options: GenerationOptions, event: GenerationProgress): void {
  try {
    options.onProgress?.(event);
  } catch {
    // Progress is best effort; a caller's bug must not end generation.
  }
}
