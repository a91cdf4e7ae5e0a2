import type { Socket } from "node:net";
import type { Wire, WireError } from "./codec.js";

/** A message of the local socket's protocol: one JSON object per line. */
export type Frame =
  /** server → client, first: the protocol version and what the store is. */
  | { t: "hello"; v: number; driver: string; listens: string[]; pid: number }
  /** client → server: call `m` with the encoded `a`; a `listen` kind's answer is a subscription id. */
  | { t: "call"; id: number; m: string; a: Wire[] }
  /**
   * client → server: a command that must own the store asks the owner to hand it over; the answer
   * `r` is true when the owner will (it then stops serving and releases the lock), false when it
   * keeps it (`whilly run`, `whilly server`).
   */
  | { t: "handover"; id: number }
  /** client → server: end the subscription `sub`. */
  | { t: "unlisten"; id: number; sub: number }
  /** server → client: the answer to call `id`. */
  | { t: "ok"; id: number; r: Wire }
  | { t: "err"; id: number; e: WireError }
  /** server → client: call the client's function handle `f` with `a` (no answer). */
  | { t: "cb"; f: number; a: Wire[] };

/**
 * The longest line a peer may send or leave unread (UTF-16 code units, about bytes): the import of a
 * plan of many thousand tasks fits many times over; a longer one ends the connection, so no peer can
 * make the other side buffer without limit.
 */
export const MAX_FRAME_CHARS = 64 * 1024 * 1024;

/**
 * Reads newline-delimited JSON frames from `socket` into `onFrame`. A line that is not a JSON object
 * with a string `t`, a line longer than {@link MAX_FRAME_CHARS}, or an `onFrame` that throws ends the
 * connection (the peer is not a whilly store socket), never the process.
 */
export function readFrames(socket: Socket, onFrame: (frame: Frame) => void): void {
  // Parts of a line not yet ended: a large frame (a big plan) arrives in many chunks.
  let parts: string[] = [];
  let pending = 0;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
      if (pending + (end - start) > MAX_FRAME_CHARS) return void socket.destroy();
      parts.push(chunk.slice(start, end));
      start = end + 1;
      const line = parts.join("");
      parts = [];
      pending = 0;
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        return void socket.destroy();
      }
      if (!isFrame(frame)) return void socket.destroy();
      try {
        onFrame(frame);
      } catch {
        return void socket.destroy();
      }
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > MAX_FRAME_CHARS) return void socket.destroy();
      parts.push(chunk.slice(start));
    }
  });
}

function isFrame(value: unknown): value is Frame {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { t?: unknown }).t === "string"
  );
}

/**
 * Writes one frame, unless the connection is gone. A peer that leaves more than
 * {@link MAX_FRAME_CHARS} unread is too slow to keep: its connection ends rather than the writer's
 * memory growing.
 */
export function writeFrame(socket: Socket, frame: Frame): void {
  if (socket.destroyed || !socket.writable) return;
  if (socket.writableLength > MAX_FRAME_CHARS) return void socket.destroy();
  socket.write(`${JSON.stringify(frame)}\n`);
}
