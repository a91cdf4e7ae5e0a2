import { type AttemptProgress, limitResetTime } from "@whilly/core";
import type { AgentStreamReader } from "../types.js";
import { type CodexEvent, errorMessageOf, itemOf, MAX_EVENT_LINE, parseEvent, toolOf } from "./events.js";
import { isUsageLimit } from "./failure.js";

/**
 * Reads `codex exec --json` output as it arrives, for progress: the thread id (`thread.started`), the
 * turns (`turn.started`), the last tool (`item.started` of a command, a file change, an MCP call), and
 * when a usage limit that refused the run resets. Lines that are not events are skipped; nothing here
 * decides the verdict (the whole output is read at the end).
 */
export class CodexStream implements AgentStreamReader {
  private pending = "";
  private thread: string | undefined;
  private turns = 0;
  private lastTool: string | undefined;
  private resetsAt: Date | undefined;

  /**
   * @param onChange called after an event changed the progress (turns or last tool); a throwing
   *   callback is ignored.
   * @param now the clock a limit's reset time is read against.
   */
  constructor(
    private readonly onChange: (progress: AttemptProgress) => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Feeds decoded stdout; complete lines are read now, a partial line waits for its end. */
  push(chunk: string): void {
    this.pending += chunk;
    let end = this.pending.indexOf("\n");
    while (end >= 0) {
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      const event = parseEvent(line);
      if (event !== undefined) this.read(event);
      end = this.pending.indexOf("\n");
    }
    if (this.pending.length > MAX_EVENT_LINE) this.pending = "";
  }

  get sessionId(): string | undefined {
    return this.thread;
  }

  get progress(): AttemptProgress {
    return { turns: this.turns, ...(this.lastTool === undefined ? {} : { last_tool: this.lastTool }) };
  }

  get limitResetsAt(): Date | undefined {
    return this.resetsAt;
  }

  private read(event: CodexEvent): void {
    if (event.type === "thread.started" && typeof event.thread_id === "string" && event.thread_id !== "") {
      this.thread ??= event.thread_id;
      return;
    }
    if (event.type === "error" || event.type === "turn.failed") {
      const message = errorMessageOf(event);
      if (isUsageLimit(message)) this.resetsAt = limitResetTime(message, this.now()) ?? this.resetsAt;
      return;
    }
    const before = `${this.turns}|${this.lastTool}`;
    if (event.type === "turn.started") this.turns += 1;
    const item = event.type === "item.started" || event.type === "item.completed" ? itemOf(event) : undefined;
    const tool = item === undefined ? undefined : toolOf(item);
    if (tool !== undefined) this.lastTool = tool;
    if (`${this.turns}|${this.lastTool}` === before) return;
    try {
      this.onChange(this.progress);
    } catch {
      // The caller's bug; progress is best effort.
    }
  }
}
