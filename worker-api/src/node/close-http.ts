import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How often connections that fell idle are closed while waiting for in-flight requests (ms). */
const IDLE_SWEEP_MS = 50;

/** The open connections of a server and how many requests each is serving. */
export type Connections = {
  /** Destroys every connection serving no request (idle keep-alive, or opened and never used). */
  closeIdle(): void;
  /** Destroys every connection. @returns how many there were. */
  closeAll(): number;
};

/**
 * Starts counting a server's connections and their in-flight requests; call before `listen`. Node's
 * own `closeIdleConnections` skips a connection that never sent a request (an HTTP client may open a
 * spare one), which would hold a closing server open until the client gives up on it.
 */
export function trackConnections(server: Server): Connections {
  const inFlight = new Map<Socket, number>();
  server.on("connection", (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once("close", () => inFlight.delete(socket));
  });
  server.on("request", (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once("close", () => {
      if (inFlight.has(socket)) inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1);
    });
  });
  return {
    closeIdle() {
      for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
    },
    closeAll() {
      const count = inFlight.size;
      for (const socket of inFlight.keys()) socket.destroy();
      return count;
    },
  };
}

/**
 * Stops accepting connections and waits for in-flight requests to finish. Connections are closed as
 * soon as they serve no request (a keep-alive client would otherwise hold the server open); whatever
 * is still open after `graceMs` is cut.
 * @returns how many connections had to be cut (0 for a clean close).
 */
export async function closeHttpServer(
  server: Server,
  connections: Connections,
  graceMs: number,
): Promise<number> {
  let cut = 0;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  connections.closeIdle();
  const idle = setInterval(() => connections.closeIdle(), IDLE_SWEEP_MS);
  const timer = setTimeout(() => {
    cut = connections.closeAll();
  }, graceMs);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(timer);
  }
  return cut;
}
