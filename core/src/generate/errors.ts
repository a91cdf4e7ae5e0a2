import type { AgentFailureReason } from "../agent-result/outcome.js";
import { WhillyError } from "../errors.js";

/** Why generation gave up: the agent's run failed, or its answers never made a valid plan or PRD. */
export type GenerationFailure = AgentFailureReason | "invalid_answer";

/**
 * Plan or PRD generation failed (exit 1): the agent's run failed (`reason` is its failure reason, such
 * as `timeout` or `is_error`), or its last answer still was not valid (`invalid_answer`, `problems`
 * listing what was wrong). `answer` is the last answer, redacted, for a person to fix by hand.
 */
export class GenerationFailed extends WhillyError {
  readonly code = "agent_failed";
  constructor(
    message: string,
    readonly reason: GenerationFailure,
    readonly problems: readonly string[],
    readonly answer: string | undefined,
    options?: { hint?: string | undefined; cause?: unknown },
  ) {
    super(message, options);
  }
}
