import type { SettledEvent } from "./source.js";

const encoder = new TextEncoder();

/**
 * One audit event as a server-sent event: `id:` the event id (what a reconnecting client sends back as
 * `Last-Event-ID`), no `event:` field (a browser's `onmessage` gets it), and `data:` one line of JSON
 * (`JSON.stringify` never writes a newline, which would split the field).
 */
export function eventFrame(event: SettledEvent, data: string): Uint8Array {
  return encoder.encode(`id: ${event.id}\ndata: ${data}\n\n`);
}

/**
 * The marker after a bounded replay: `after` is the last event id sent; the stream then ends and a
 * client reconnects with it as `Last-Event-ID` for the next part.
 */
export function truncatedFrame(after: number, limit: number): Uint8Array {
  return encoder.encode(`event: replay_truncated\ndata: ${JSON.stringify({ after, limit })}\n\n`);
}

/** A comment line, ignored by clients, that keeps proxies from closing an idle stream. */
export const KEEP_ALIVE_FRAME: Uint8Array = encoder.encode(": keep-alive\n\n");

/** The comment a stream starts with: it carries the response's head to the client at once. */
export const OPEN_FRAME: Uint8Array = encoder.encode(": open\n\n");
