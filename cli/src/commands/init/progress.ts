import type { GenerationProgress } from "@whilly/agent";
import { displayUsd } from "@whilly/core";
import type { Io } from "../../io.js";

/** Writes one progress line of `whilly init` on stderr: `whilly init: <text>`. */
export function step(io: Io, text: string): void {
  io.err.write(`whilly init: ${text}\n`);
}

/**
 * The progress lines of generation: which document is asked for and which try, a line while the model
 * is still thinking, what each answer cost, and the problems of an answer that was not a valid plan.
 */
export function generationProgress(io: Io, model: string): (event: GenerationProgress) => void {
  const name = (what: "plan" | "prd") => (what === "plan" ? "a plan" : "the PRD");
  return (event) => {
    switch (event.kind) {
      case "asking":
        step(
          io,
          `asking ${model} for ${name(event.what)}${event.of > 1 ? ` (try ${event.attempt} of ${event.of})` : ""}; every tool disabled`,
        );
        return;
      case "waiting":
        step(io, `still waiting for ${name(event.what)} (${seconds(event.elapsedMs)})`);
        return;
      case "answered":
        step(io, `answered in ${seconds(event.durationMs)}, ${displayUsd(event.costMicroUsd)}`);
        return;
      case "rejected": {
        const count = event.problems.length;
        step(io, `the answer is not a valid plan (${count} problem${count === 1 ? "" : "s"}):`);
        for (const problem of event.problems) io.err.write(`  - ${problem}\n`);
        return;
      }
    }
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
