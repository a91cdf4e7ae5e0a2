import type { RawAgentResult } from "@whilly/core";

/** The most of stdout kept as the run's final text (its end), characters. */
const MAX_RESULT_CHARS = 64 * 1024;

/**
 * A generic command's result in the shared classifier's shape: subtype `success`, not an error (the
 * exit code decides, under the `exit-code` rule), the end of stdout as the final text, and the cost
 * when the last non-empty line of stdout is a JSON object with a number `cost_usd` (`{"cost_usd":
 * 0.01}`; that line is then left out of the text). Any other last line is ordinary output. `undefined`
 * when the process did not exit by itself (a signal ended it): the classifier then judges by the signal.
 * Total: never throws.
 */
export function cmdResult(output: {
  readonly stdout: string;
  readonly exitCode: number | null;
}): RawAgentResult | undefined {
  if (output.exitCode === null) return undefined;
  const lines = output.stdout.trimEnd().split("\n");
  const cost = costOf(lines.at(-1) ?? "");
  if (cost !== undefined) lines.pop();
  const text = lines.join("\n").trimEnd();
  return {
    type: "result",
    subtype: "success",
    is_error: false,
    result: text.length > MAX_RESULT_CHARS ? text.slice(-MAX_RESULT_CHARS) : text,
    ...(cost === undefined ? {} : { total_cost_usd: cost }),
  };
}

/** The `cost_usd` of a line holding only a JSON object with a finite, non-negative number there. */
function costOf(line: string): number | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const cost = (parsed as { cost_usd?: unknown }).cost_usd;
  return typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}
