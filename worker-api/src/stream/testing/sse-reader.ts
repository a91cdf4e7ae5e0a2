/** One server-sent-events frame as a test sees it: its fields, or the text of a comment line. */
export type SseFrame = {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
};

/**
 * Reads frames off an SSE body one at a time. `next(timeoutMs)` resolves with the next frame, or
 * `undefined` when the body ended; it rejects when nothing came within the timeout.
 */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  const frames: SseFrame[] = [];
  // A read that lost a race with the timeout is kept for the next call, so no chunk is dropped.
  let pending: ReturnType<typeof reader.read> | undefined;

  const parse = () => {
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) frame.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(":");
          const field = line.slice(0, colon);
          frame[field] = line.slice(colon + 1).replace(/^ /, "");
        }
      }
      frames.push(frame);
    }
  };

  return {
    async next(timeoutMs = 5000): Promise<SseFrame | undefined> {
      const deadline = Date.now() + timeoutMs;
      while (frames.length === 0 && !ended) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no SSE frame within ${timeoutMs} ms`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), left);
        });
        pending ??= reader.read();
        const chunk = await Promise.race([pending, timeout]);
        clearTimeout(timer);
        if (chunk === "timeout") throw new Error(`no SSE frame within ${timeoutMs} ms`);
        pending = undefined;
        if (chunk.done) ended = true;
        else {
          buffer += decoder.decode(chunk.value, { stream: true });
          parse();
        }
      }
      return frames.shift();
    },
    /** The next frame that is not a comment. */
    async nextEvent(timeoutMs = 5000): Promise<SseFrame | undefined> {
      for (;;) {
        const frame = await this.next(timeoutMs);
        if (frame === undefined || frame.comment === undefined) return frame;
      }
    },
    /** Stops reading: the server sees the client leave. */
    async cancel(): Promise<void> {
      await reader.cancel().catch(() => {});
    },
  };
}
