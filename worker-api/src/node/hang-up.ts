import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A signal that aborts as soon as this Node request's client hangs up: its connection ends or closes,
 * or the request is aborted, before the response finished. `@hono/node-server` aborts the request's
 * own signal only on the response's `close`, which Node emits once the socket is fully closed; under
 * load that came tens of milliseconds after the client's FIN, long enough for a parked claim to be
 * handed a task its client never read. Listeners are removed when the response finishes or closes,
 * so a kept-alive socket carries none from earlier requests.
 */
export function hangUpSignal(incoming: IncomingMessage, outgoing: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const socket = incoming.socket;
  const cleanup = () => {
    socket.off("end", hungUp);
    socket.off("close", hungUp);
    incoming.off("aborted", hungUp);
    outgoing.off("close", hungUp);
    outgoing.off("finish", cleanup);
  };
  function hungUp() {
    cleanup();
    if (!outgoing.writableFinished) controller.abort(new Error("the client hung up"));
  }
  if (socket.destroyed || socket.readableEnded) {
    hungUp();
    return controller.signal;
  }
  socket.once("end", hungUp);
  socket.once("close", hungUp);
  incoming.once("aborted", hungUp);
  outgoing.once("close", hungUp);
  outgoing.once("finish", cleanup);
  return controller.signal;
}
