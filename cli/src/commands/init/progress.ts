import type { GenerationProgress } from "@whilly/agent";
import { displayUsd } from "@whilly/core";
import type { Io } from "../../io.js";

/** Writes one progress line of `whilly init` (or of `prefix`) on stderr: `whilly init: <text>`. */
export function step(io: Io, text: string, prefix = "whilly init"): void {
  io.err.write(`${prefix}: ${text}\n`);
}

/**
 * The progress lines of generation: which document is asked for and which try, a line while the model
 * is still thinking, what each answer cost, and the problems of an answer that was not a valid plan.
 */
export function generationProgress(
  io: Io,
  model: string,
  prefix = "whilly init",
): (event: GenerationProgress) => void {
  const say = (out: Io, text: string) => step(out, text, prefix);
  const name = (what: "plan" | "prd") => (what === "plan" ? "a plan" : "the PRD");
  return (event) => {
    switch (event.kind) {
      case "asking":
        say(
          io,
          `asking ${model} for ${name(event.what)}${event.of > 1 ? ` (try ${event.attempt} of ${event.of})` : ""}; every tool disabled`,
        );
        return;
      case "waiting":
        say(io, `still waiting for ${name(event.what)} (${seconds(event.elapsedMs)})`);
        return;
      case "answered":
        say(io, `answered in ${seconds(event.durationMs)}, ${displayUsd(event.costMicroUsd)}`);
        return;
      case "rejected": {
        const count = event.problems.length;
        say(io, `the answer is not a valid plan (${count} problem${count === 1 ? "" : "s"}):`);
        for (const problem of event.problems) io.err.write(`  - ${problem}\n`);
        return;
      }
    }
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
