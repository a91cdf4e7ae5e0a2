import { session } from "../api/session.js";
import type { AuditEvent } from "../api/types.js";
import { createStore } from "../store.js";

/**
 * The page's stream: "connecting" before its first open, "live" while open, "reconnecting" after an
 * error, "offline" when it has stayed down for `OFFLINE_AFTER_MS` (the server stopped, or the run of
 * `whilly run --ui` ended); it keeps trying in every state but "off".
 */
export type StreamState = "off" | "connecting" | "live" | "reconnecting" | "offline";
export const streamState = createStore<StreamState>("off");

/** Backoff before reopening a stream the server refused or ended for good, in ms. */
const REOPEN_MS = [500, 1000, 2000, 5000, 10_000];

/** How long the stream stays down before the page calls the server offline rather than reconnecting, in ms. */
const OFFLINE_AFTER_MS = 5000;

interface Handlers {
  /** Each audit event, in stream order. */
  onEvent(event: AuditEvent): void;
  /**
   * The stream came back after an error, or was refused: events may have been missed, or what it
   * followed is gone, so refetch the snapshot.
   */
  onResync(): void;
}

/**
 * Follows `url` (a plan's `/events/stream` or the global one) with one EventSource, which sends the
 * session cookie. The browser reconnects by itself after a dropped connection, resuming from
 * `Last-Event-ID`; a refused one (401 after a server restart or the session's expiry, 503) closes it,
 * so this re-opens the session with the stored token and reopens, with backoff, resuming from the last
 * event seen.
 * @returns a function that closes the stream.
 */
export function openStream(url: string, handlers: Handlers): () => void {
  let source: EventSource | null = null;
  let lastId: string | null = null;
  let failures = 0;
  let errored = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let offlineTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const connect = () => {
    const sep = url.includes("?") ? "&" : "?";
    source = new EventSource(lastId ? `${url}${sep}after=${encodeURIComponent(lastId)}` : url);
    source.onopen = () => {
      clearTimeout(offlineTimer);
      offlineTimer = undefined;
      streamState.set("live");
      failures = 0;
      if (errored) handlers.onResync();
      errored = false;
    };
    source.onmessage = (msg: MessageEvent<string>) => {
      if (msg.lastEventId) lastId = msg.lastEventId;
      try {
        handlers.onEvent(JSON.parse(msg.data) as AuditEvent);
      } catch {
        // A frame that is not an event (none are sent today): ignore it rather than stop the stream.
      }
    };
    source.onerror = () => {
      if (offlineTimer === undefined) {
        streamState.set("reconnecting");
        offlineTimer = setTimeout(() => streamState.set("offline"), OFFLINE_AFTER_MS);
      }
      errored = true;
      if (source?.readyState !== EventSource.CLOSED) return;
      source.close();
      // Refused (the plan deleted, the session ended, the server down): the snapshot's own answer says
      // which, and the page shows it rather than stale data.
      handlers.onResync();
      const wait = REOPEN_MS[Math.min(failures++, REOPEN_MS.length - 1)];
      timer = setTimeout(async () => {
        await session.renew();
        if (!closed && session.get()) connect();
      }, wait);
    };
  };

  streamState.set("connecting");
  connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    clearTimeout(offlineTimer);
    source?.close();
    streamState.set("off");
  };
}
