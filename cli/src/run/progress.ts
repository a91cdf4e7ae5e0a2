import { describeTriz, type ProgressEvent } from "@whilly/agent";
import { type AttemptProgress, displayUsd, terminalText } from "@whilly/core";
import type { Io } from "../io.js";
import { painter } from "../io.js";
import { displayDuration } from "../output/table.js";

/**
 * Prints one line per step of a run to stderr, and while an agent works a `… T-B running 1m30s` line
 * each time the loop reports it still running (`WHILLY_PROGRESS_INTERVAL`), so a long task shows it is
 * alive, with what it does (`agent · turn 4 · Edit`); with `--concurrency` each running task has its
 * own lines. Always whole lines, on a terminal too: redrawing one line in place would need cursor control
 * in a stream that escapes it, and would garble when a retry or heartbeat line comes in between.
 * @returns the event handler for the worker loop's `onProgress`.
 */
export function progressPrinter(io: Io, total: number) {
  const paint = painter(io.err, io.env);
  let finished = 0;
  // What each running task's attempt did last, for its running lines.
  const doing = new Map<string, AttemptProgress>();
  // One line per step, whatever an agent's or a server's message holds.
  const line = (text: string) =>
    io.err.write(`${paint("dim", `[${finished}/${total}]`)} ${terminalText(text, "line")}\n`);

  const onFinished = (event: Extract<ProgressEvent, { kind: "finished" }>): void => {
    doing.delete(event.task.id);
    // A retried task is not finished yet: it counts once, when it ends.
    if (!event.retry) finished++;
    const { task, attempt } = event;
    const cost = displayUsd(attempt.costMicroUsd);
    const took = displayDuration(event.elapsedMs);
    const on = agentOf(attempt.detail.agent, attempt.detail.model);
    if (attempt.ok) line(`${paint("green", "✓")} ${task.id} DONE in ${took} · ${cost}${on}`);
    else {
      // The attempt's duration, then when the retry may run (the task's not-before), never one for the other.
      const when = event.notBefore === undefined ? "to be retried" : `retry at ${clockTime(event.notBefore)}`;
      const verdict = event.retry
        ? `attempt ${task.attempts} failed after ${took} (${attempt.reason}); ${when}`
        : `FAILED (${attempt.reason}) in ${took}`;
      line(`${paint(event.retry ? "yellow" : "red", "✗")} ${task.id} ${verdict} · ${cost}${on}`);
      const why = attempt.detail.message;
      if (typeof why === "string" && why !== "") io.err.write(`      ${terminalText(why, "line")}\n`);
    }
  };

  const onEvent = (event: ProgressEvent): void => {
    switch (event.kind) {
      case "claimed":
        return;
      case "started": {
        const t = event.task;
        doing.set(t.id, {});
        line(
          `${paint("cyan", "▶")} ${t.id} (${t.priority}) attempt ${t.attempts}${agentOf(t.agent, t.model)}`,
        );
        return;
      }
      case "running": {
        const what = describeProgress(doing.get(event.task.id));
        line(`${paint("dim", "…")} ${event.task.id} running ${displayDuration(event.elapsedMs)}${what}`);
        return;
      }
      case "activity":
        // Shown by the next running line: an agent reports about once a second.
        doing.set(event.task.id, event.progress);
        return;
      case "paused":
        doing.delete(event.task.id);
        if (event.agent !== undefined) {
          line(
            `${paint("yellow", "⏸")} provider limit on ${event.task.id} (${event.message}); agent ${event.agent} takes no new task before ${clockTime(event.until)}, the others go on`,
          );
          return;
        }
        line(
          `${paint("yellow", "⏸")} provider limit on ${event.task.id} (${event.message}); no new task before ${clockTime(event.until)}, then ${event.task.id} runs again`,
        );
        return;
      case "faulted":
        doing.delete(event.task.id);
        line(
          `${paint("yellow", "⏸")} ${event.task.id} handed back: ${event.message}; no new task before ${clockTime(event.until)} (${event.hint})`,
        );
        return;
      case "finished":
        onFinished(event);
        return;
      case "released":
        doing.delete(event.task.id);
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
      case "triz":
        line(
          `${paint("dim", "?")} ${event.task.id} failure analysis: ${terminalText(describeTriz(event), "line")}`,
        );
        return;
    }
  };
  return { onEvent };
}

/**
 * ` · on codex (gpt-5-codex)`: the attempt's agent and model, for an agent other than Claude Code (the
 * default, whose lines stay as they were); nothing when unknown.
 */
function agentOf(agent: unknown, model: unknown): string {
  if (typeof agent !== "string" || agent === "" || agent === "claude") return "";
  return typeof model === "string" && model !== "" ? ` · on ${agent} (${model})` : ` · on ${agent}`;
}

/** ` · agent · turn 4 · Edit`, or nothing when the attempt reported nothing yet. */
function describeProgress(progress: AttemptProgress | undefined): string {
  if (progress === undefined) return "";
  const parts = [
    progress.phase,
    progress.turns === undefined ? undefined : `turn ${progress.turns}`,
    progress.last_tool,
  ].filter((part) => part !== undefined && part !== "");
  return parts.map((part) => ` · ${part}`).join("");
}

/**
 * A time for a progress line: `20:00:05` today in this machine's time zone, with the date when it is
 * another day, and the zone's offset so a log read elsewhere is not misread.
 */
export function clockTime(at: Date, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  const offset = -at.getTimezoneOffset();
  const zone = `${offset >= 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const sameDay = at.toDateString() === now.toDateString();
  const date = sameDay ? "" : `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} `;
  return `${date}${time} (UTC${zone})`;
}
