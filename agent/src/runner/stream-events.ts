import type { AttemptProgress } from "@whilly/core";

/** A line longer than this is not an event worth parsing for progress (a huge tool result); bytes. */
const MAX_EVENT_LINE = 1024 * 1024;

/**
 * Reads Claude Code's `--output-format stream-json` output as it arrives (one JSON object per line:
 * `system`/`init` with the `session_id`, `assistant` messages, one content block each, `user` tool
 * results, and the final `result`) and keeps what progress needs: the session id, the agent's turns
 * (distinct assistant message ids) and the name of the last tool it called. Lines that are not JSON are
 * skipped. The final verdict is not made here: the whole output is classified when the run ends.
 */
export class StreamEvents {
  private pending = "";
  private readonly messages = new Set<string>();
  private lastTool: string | undefined;
  private session: string | undefined;
  private anonymousTurns = 0;
  private resetsAt: Date | undefined;

  /** @param onChange called after a line changed the progress (turns or last tool). */
  constructor(private readonly onChange: (progress: AttemptProgress) => void = () => {}) {}

  /** Feeds decoded stdout; complete lines are read now, a partial line waits for its end. */
  push(chunk: string): void {
    this.pending += chunk;
    let end = this.pending.indexOf("\n");
    while (end >= 0) {
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      this.line(line);
      end = this.pending.indexOf("\n");
    }
    if (this.pending.length > MAX_EVENT_LINE) this.pending = "";
  }

  /** The session id of the run, from the `init` event (or any later event carrying one). */
  get sessionId(): string | undefined {
    return this.session;
  }

  /**
   * When the provider said a limit that refused this run resets: a `rate_limit_event` whose status is
   * not `allowed`, with `resetsAt` in Unix seconds.
   */
  get limitResetsAt(): Date | undefined {
    return this.resetsAt;
  }

  /** Turns and last tool so far. */
  get progress(): AttemptProgress {
    const turns = this.messages.size + this.anonymousTurns;
    return {
      turns,
      ...(this.lastTool === undefined ? {} : { last_tool: this.lastTool }),
    };
  }

  private line(text: string): void {
    const trimmed = text.trim();
    if (!trimmed.startsWith("{") || trimmed.length > MAX_EVENT_LINE) return;
    let event: unknown;
    try {
      event = JSON.parse(trimmed);
    } catch {
      return;
    }
    if (typeof event !== "object" || event === null) return;
    const e = event as { type?: unknown; session_id?: unknown; message?: unknown };
    if (this.session === undefined && typeof e.session_id === "string" && e.session_id !== "") {
      this.session = e.session_id;
    }
    if (e.type === "rate_limit_event") this.rateLimit(event as { rate_limit_info?: unknown });
    if (e.type !== "assistant") return;
    const message = (typeof e.message === "object" && e.message !== null ? e.message : {}) as {
      id?: unknown;
      content?: unknown;
    };
    const before = `${this.progress.turns}|${this.lastTool}`;
    if (typeof message.id === "string") this.messages.add(message.id);
    else this.anonymousTurns += 1;
    const blocks = Array.isArray(message.content)
      ? (message.content as { type?: unknown; name?: unknown }[])
      : [];
    for (const block of blocks) {
      if (block?.type === "tool_use" && typeof block.name === "string") this.lastTool = block.name;
    }
    if (`${this.progress.turns}|${this.lastTool}` !== before) this.onChange(this.progress);
  }

  private rateLimit(event: { rate_limit_info?: unknown }): void {
    const info = event.rate_limit_info as { status?: unknown; resetsAt?: unknown } | null | undefined;
    if (typeof info !== "object" || info === null || info.status === "allowed") return;
    if (typeof info.resetsAt === "number" && Number.isFinite(info.resetsAt) && info.resetsAt > 0) {
      this.resetsAt = new Date(info.resetsAt * 1000);
    }
  }
}

/**
 * Calls `report` at most once per `intervalMs` with the latest value: the first value at once, later ones
 * when the interval since the last call has passed (a value that arrives sooner waits, replaced by any
 * newer one). `flush()` sends a waiting value now; `stop()` drops it.
 */
export function throttle<T>(
  report: (value: T) => void,
  intervalMs: number,
): { push(value: T): void; flush(): void; stop(): void } {
  let last = Number.NEGATIVE_INFINITY;
  let waiting: { value: T } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const send = () => {
    timer = undefined;
    if (waiting === undefined) return;
    const { value } = waiting;
    waiting = undefined;
    last = performance.now();
    safely(report, value);
  };
  return {
    push(value) {
      waiting = { value };
      if (timer !== undefined) return;
      const due = last + intervalMs - performance.now();
      if (due <= 0) send();
      else timer = setTimeout(send, due);
    },
    flush() {
      clearTimeout(timer);
      send();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
    },
  };
}

/** A progress callback that throws must not end the attempt. */
function safely<T>(report: (value: T) => void, value: T): void {
  try {
    report(value);
  } catch {
    // The caller's bug; progress is best effort.
  }
}
