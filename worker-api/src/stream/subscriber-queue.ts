/**
 * The frames waiting for one stream client, at most `maxBytes` of them (a single larger frame fits an
 * empty queue): the readable side is the response body, which the host drains as fast as the client's
 * connection takes it (Node waits for the socket's `drain`), so a client that stops reading fills it.
 */
export class SubscriberQueue {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #roomWaiters = new Set<() => void>();
  #cancelled: (() => void) | undefined;
  #open = true;

  constructor(private readonly maxBytes: number) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          for (const wake of [...this.#roomWaiters]) wake();
        },
        cancel: () => {
          this.#open = false;
          this.#cancelled?.();
        },
      },
      { highWaterMark: maxBytes, size: (chunk) => chunk.byteLength },
    );
  }

  /** Bytes queued and not yet taken by the client. */
  get queuedBytes(): number {
    return Math.max(0, this.maxBytes - (this.#controller.desiredSize ?? this.maxBytes));
  }

  /**
   * Queues `frame`, waiting up to `waitMs` for the client to make room.
   * @returns false when no room came in time (the client is too slow) or the queue is closed or
   *   `signal` aborted: the frame was not queued.
   */
  async push(frame: Uint8Array, waitMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while (this.#open && !signal.aborted) {
      const used = this.queuedBytes;
      if (used === 0 || used + frame.byteLength <= this.maxBytes) {
        this.#controller.enqueue(frame);
        return true;
      }
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.#roomOrTimeout(left, signal);
    }
    return false;
  }

  /** Calls `handler` when the client goes away (the host cancels the body). */
  onCancel(handler: () => void): void {
    this.#cancelled = handler;
  }

  /** Ends the body after the queued frames. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#controller.close();
  }

  /** Ends the body at once, discarding the queued frames (the host drops the connection). */
  fail(error: unknown): void {
    if (!this.#open) return;
    this.#open = false;
    this.#controller.error(error);
    for (const wake of [...this.#roomWaiters]) wake();
  }

  #roomOrTimeout(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#roomWaiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#roomWaiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
