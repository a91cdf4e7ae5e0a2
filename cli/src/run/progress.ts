import type { ProgressEvent } from "@whilly/agent";
import { displayUsd, terminalText } from "@whilly/core";
import type { Io } from "../io.js";
import { painter } from "../io.js";
import { displayDuration } from "../output/table.js";

/**
 * Prints one line per step of a run to stderr, and a "still running" line every `tickMs` while an agent
 * works, so a long task shows it is alive.
 * @returns the event handler and a `stop()` that clears the ticker.
 */
export function progressPrinter(io: Io, total: number, tickMs = 60_000) {
  const paint = painter(io.err, io.env);
  let finished = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const stopTicker = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };
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
        const startedAt = Date.now();
        stopTicker();
        ticker = setInterval(
          () => line(`  … ${t.id} still running (${displayDuration(Date.now() - startedAt)})`),
          tickMs,
        );
        ticker.unref?.();
        return;
      }
      case "finished": {
        stopTicker();
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
        stopTicker();
        line(`${paint("yellow", "↩")} ${event.task.id} released (${event.reason})`);
        return;
      case "lost":
        stopTicker();
        line(`${paint("yellow", "!")} ${event.task.id}: lease lost, result dropped (${event.error.message})`);
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
  return { onEvent, stop: stopTicker };
}
