import type { ProgressEvent } from "@whilly/agent";
import { displayUsd, terminalText } from "@whilly/core";
import type { Io } from "../io.js";
import { painter } from "../io.js";
import { displayDuration } from "../output/table.js";

/**
 * Prints one line per step of a run to stderr, and while an agent works a `… T-B running 1m30s` line
 * each time the loop reports it still running (`WHILLY_PROGRESS_INTERVAL`), so a long task shows it is
 * alive. Always whole lines, on a terminal too: redrawing one line in place would need cursor control
 * in a stream that escapes it, and would garble when a retry or heartbeat line comes in between.
 * @returns the event handler for the worker loop's `onProgress`.
 */
export function progressPrinter(io: Io, total: number) {
  const paint = painter(io.err, io.env);
  let finished = 0;
  // One line per step, whatever an agent's or a server's message holds.
  const line = (text: string) =>
    io.err.write(`${paint("dim", `[${finished}/${total}]`)} ${terminalText(text, "line")}\n`);

  const onEvent = (event: ProgressEvent): void => {
    switch (event.kind) {
      case "claimed":
        return;
      case "started": {
        const t = event.task;
        line(`${paint("cyan", "▶")} ${t.id} (${t.priority}) attempt ${t.attempts}`);
        return;
      }
      case "running":
        line(`${paint("dim", "…")} ${event.task.id} running ${displayDuration(event.elapsedMs)}`);
        return;
      case "finished": {
        finished++;
        const { task, attempt } = event;
        const cost = displayUsd(attempt.costMicroUsd);
        const took = displayDuration(event.elapsedMs);
        if (attempt.ok) line(`${paint("green", "✓")} ${task.id} DONE in ${took} · ${cost}`);
        else {
          line(`${paint("red", "✗")} ${task.id} FAILED (${attempt.reason}) in ${took} · ${cost}`);
          const why = attempt.detail.message;
          if (typeof why === "string" && why !== "") io.err.write(`      ${terminalText(why, "line")}\n`);
        }
        return;
      }
      case "released":
        line(`${paint("yellow", "↩")} ${event.task.id} released (${event.reason})`);
        return;
      case "lost":
        line(
          `${paint("yellow", "!")} ${event.task.id}: lease lost${event.beforeStart ? " before the agent started" : ", result dropped"} (${event.error.message})`,
        );
        return;
      case "release_failed":
        line(`${paint("yellow", "!")} ${event.task.id} not handed back (${event.error.message})`);
        return;
      case "retrying":
        line(
          `${paint("yellow", "…")} ${event.what} failed (${event.error.message}); retrying in ${displayDuration(event.delayMs)}`,
        );
        return;
      case "heartbeat_failed":
        line(`${paint("yellow", "!")} heartbeat failed: ${event.error.message}`);
        return;
    }
  };
  return { onEvent };
}
