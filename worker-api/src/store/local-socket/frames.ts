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
 * Reads newline-delimited JSON frames from `socket` into `onFrame`; a line that is not JSON ends the
 * connection (the peer is not a whilly store socket).
 */
export function readFrames(socket: Socket, onFrame: (frame: Frame) => void): void {
  // Parts of a line not yet ended: a large frame (a big plan) arrives in many chunks.
  let parts: string[] = [];
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
      parts.push(chunk.slice(start, end));
      start = end + 1;
      const line = parts.join("");
      parts = [];
      let frame: Frame;
      try {
        frame = JSON.parse(line) as Frame;
      } catch {
        socket.destroy();
        return;
      }
      onFrame(frame);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  });
}

/** Writes one frame, unless the connection is gone. */
export function writeFrame(socket: Socket, frame: Frame): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(frame)}\n`);
}
