import type { AttemptProgress } from "@whilly/core";
import type { AgentStreamReader } from "../types.js";
import { MAX_EVENT_LINE, parseEventLine, stringField, TurnCounter } from "./events.js";

/**
 * Reads the Gemini CLI's `stream-json` output as it arrives and keeps what progress needs: the session
 * id (from `init`), the turns and the last tool called. Lines that are not events are skipped; a callback
 * that throws does not stop the reading. The verdict is made at the end from the whole output
 * (`geminiResult`). The CLI reports no limit reset time in its stream, so {@link limitResetsAt} stays
 * `undefined` (the reset, when the API names one, is read from the final error text).
 */
export class GeminiStreamReader implements AgentStreamReader {
  private pending = "";
  private session: string | undefined;
  private readonly turns = new TurnCounter();

  /** @param onChange called after a line changed the turns or the last tool. */
  constructor(private readonly onChange: (progress: AttemptProgress) => void = () => {}) {}

  /** Feeds decoded stdout; complete lines are read now, a partial line waits for its end. */
  push(chunk: string): void {
    this.pending += chunk;
    let end = this.pending.indexOf("\n");
    while (end >= 0) {
      this.line(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 1);
      end = this.pending.indexOf("\n");
    }
    if (this.pending.length > MAX_EVENT_LINE) this.pending = "";
  }

  /** The session id the `init` event named, if it came yet. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Turns and last tool so far. */
  get progress(): AttemptProgress {
    const tool = this.turns.lastTool;
    return { turns: this.turns.turns, ...(tool === undefined ? {} : { last_tool: tool }) };
  }

  /** Always `undefined`: the stream names no reset time. */
  get limitResetsAt(): Date | undefined {
    return undefined;
  }

  private line(text: string): void {
    const event = parseEventLine(text);
    if (event === undefined) return;
    if (this.session === undefined && event.type === "init") {
      const id = stringField(event, "session_id");
      if (id !== undefined && id !== "") this.session = id;
    }
    if (!this.turns.see(event)) return;
    try {
      this.onChange(this.progress);
    } catch {
      // The caller's bug; progress is best effort.
    }
  }
}
