import { onSharedAbort } from "../shared-abort.js";
import { eventFrame, KEEP_ALIVE_FRAME, OPEN_FRAME, truncatedFrame } from "./frames.js";
import type { EventCursor, EventFeed, SettledEvent } from "./source.js";
import { SubscriberQueue } from "./subscriber-queue.js";

/** Limits of one audit-event stream. Durations are ms. */
export type EventStreamSettings = {
  /** A comment frame goes out after this long without a frame (`WHILLY_EVENTS_KEEPALIVE`, default 15 s). */
  readonly keepAliveMs: number;
  /** At most this many events are replayed to a client that names its last event (default 1,000). */
  readonly replayLimit: number;
  /**
   * The most bytes queued for a client that does not read (`WHILLY_EVENTS_MAX_QUEUED`, default 256 KiB):
   * a frame that finds no room within a keep-alive interval drops the client.
   */
  readonly maxQueuedBytes: number;
};

/** Events read per query once replay is over. */
const PAGE = 100;

/** How a stream ended: caught up then closed by the host, truncated replay, client gone, too slow, or a read failed. */
export type StreamEnd = "stopped" | "truncated" | "cancelled" | "dropped" | "failed";

/** Options of {@link openEventStream}. */
export type OpenEventStreamOptions = {
  readonly feed: EventFeed;
  /** One plan's events; every plan's when absent. */
  readonly planId?: string | undefined;
  /** The last event id the client has (`Last-Event-ID` or `?after=`); absent: only events from now on. */
  readonly afterId?: number | undefined;
  readonly settings: EventStreamSettings;
  /** The `data:` JSON of an event (the read API's event shape). */
  readonly format: (event: SettledEvent) => string;
  /** Any of these aborting ends the stream (`stopped`): the host stopping, the client leaving. */
  readonly stopping?: readonly AbortSignal[] | undefined;
  /** Told once how the stream ended, with the error of a failed read. */
  readonly onEnd?: ((end: StreamEnd, error?: unknown) => void) | undefined;
};

/**
 * The body of a server-sent-events response that follows the audit log: replays what the client
 * missed (bounded by `replayLimit`, then a `replay_truncated` frame and the end), then delivers every
 * event once it settles, in the feed's no-skip order, each exactly once, with keep-alive comments in
 * between. Frames wait in a bounded queue the client drains; reads stop while it is full, so a slow
 * client costs the database nothing more and memory stays under `maxQueuedBytes` plus one frame and
 * one page of events (100) read from the database.
 */
export function openEventStream(options: OpenEventStreamOptions): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  const queue = new SubscriberQueue(options.settings.maxQueuedBytes);
  let ended = false;
  const end = (how: StreamEnd, error?: unknown) => {
    if (ended) return;
    ended = true;
    stop.abort();
    options.onEnd?.(how, error);
    if (how === "dropped" || how === "failed") queue.fail(error ?? new Error(`event stream ${how}`));
    else if (how !== "cancelled") queue.close();
  };
  // The host's stopping signal outlives every stream: one shared listener, not one per stream.
  const unsubscribe = (options.stopping ?? []).map((signal) => onSharedAbort(signal, () => end("stopped")));
  follow(options, queue, stop.signal)
    .then((how) => end(how))
    .catch((error: unknown) => end("failed", error))
    .finally(() => {
      for (const off of unsubscribe) off();
    });
  queue.onCancel(() => end("cancelled"));
  return queue.readable;
}

async function follow(
  options: OpenEventStreamOptions,
  queue: SubscriberQueue,
  signal: AbortSignal,
): Promise<StreamEnd> {
  const { feed, planId } = options;
  const cursor =
    options.afterId === undefined ? await feed.head(planId) : await feed.cursorAfter(options.afterId, planId);
  const follower = new Follower(options, queue, signal, cursor);
  // A comment at once, so the response's head goes out and the client sees the stream open now, not
  // at the first event or keep-alive (a browser's EventSource fires `open` only then).
  if (!(await follower.open())) return signal.aborted ? "stopped" : "dropped";
  while (!signal.aborted) {
    // This round's wait ends with the round (or the stream); listeners are removed, not left to the GC.
    const guard = new AbortController();
    const endRound = () => guard.abort();
    signal.addEventListener("abort", endRound, { once: true });
    const woken = feed.wait(planId, guard.signal);
    try {
      const outcome = await follower.deliverPage();
      if (outcome === "more") continue;
      if (outcome !== "caught_up") return outcome;
      const idle = await follower.idle(woken, guard.signal);
      if (idle !== undefined) return idle;
    } finally {
      signal.removeEventListener("abort", endRound);
      guard.abort();
    }
  }
  return "stopped";
}

/** One stream's position and pace: what it delivered, whether it is still replaying, when it last sent. */
class Follower {
  #replaying: boolean;
  #replayed = 0;
  #lastFrameAt = Date.now();

  constructor(
    private readonly options: OpenEventStreamOptions,
    private readonly queue: SubscriberQueue,
    private readonly signal: AbortSignal,
    private cursor: EventCursor,
  ) {
    this.#replaying = options.afterId !== undefined;
  }

  /**
   * Reads and sends one page. @returns "more" after a full page, "caught_up" after a short one, or how
   * the stream ends (a finished bounded replay, a client that took no room, the stream stopping).
   */
  async deliverPage(): Promise<StreamEnd | "more" | "caught_up"> {
    const { feed, planId, settings } = this.options;
    const limit = this.#replaying ? Math.min(PAGE, settings.replayLimit - this.#replayed + 1) : PAGE;
    const page = await feed.read(this.cursor, limit, planId);
    for (const event of page) {
      if (this.#replaying && this.#replayed === settings.replayLimit) {
        return (await this.#send(truncatedFrame(this.cursor.id, settings.replayLimit)))
          ? "truncated"
          : this.#gone();
      }
      if (!(await this.#send(eventFrame(event, this.options.format(event))))) return this.#gone();
      this.cursor = event.cursor;
      if (this.#replaying) this.#replayed++;
    }
    if (page.length === limit) return "more";
    this.#replaying = false;
    return "caught_up";
  }

  /** Sends the opening comment; false when the client took no room for it. */
  open(): Promise<boolean> {
    return this.#send(OPEN_FRAME);
  }

  /** Waits for a wake-up or the keep-alive interval, sending a keep-alive if nothing went out in it. */
  async idle(woken: Promise<void>, round: AbortSignal): Promise<StreamEnd | undefined> {
    const every = this.options.settings.keepAliveMs;
    await Promise.race([woken, delay(Math.max(0, every - (Date.now() - this.#lastFrameAt)), round)]);
    if (this.signal.aborted) return "stopped";
    if (Date.now() - this.#lastFrameAt < every) return undefined;
    return (await this.#send(KEEP_ALIVE_FRAME)) ? undefined : this.#gone();
  }

  /** False when the client took no room within a keep-alive interval (or the stream is ending). */
  async #send(frame: Uint8Array): Promise<boolean> {
    const queued = await this.queue.push(frame, this.options.settings.keepAliveMs, this.signal);
    if (queued) this.#lastFrameAt = Date.now();
    return queued;
  }

  #gone(): StreamEnd {
    return this.signal.aborted ? "stopped" : "dropped";
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
