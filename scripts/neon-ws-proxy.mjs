// A WebSocket-to-TCP proxy that lets the Neon serverless driver (which speaks Postgres over a
// WebSocket) reach a plain local Postgres: `wrangler dev` and the workerd tests point the driver at it
// with WHILLY_NEON_WS_PROXY. Each WebSocket is one Postgres connection to the `?address=host:port` it
// names, if that address is allowed. Development and tests only; real Neon needs no proxy.
import { createServer } from "node:http";
import { connect } from "node:net";
import { WebSocketServer } from "ws";

/**
 * Starts the proxy.
 * @param {{ host?: string, port?: number, allow: string[], control?: boolean }} options `allow` lists the
 *   `host:port` addresses it may connect to. `control: true` (tests) adds `POST /refuse` and `POST /accept`:
 *   between them the proxy turns down new connections, so a test can stage a database outage.
 * @returns {Promise<{ address: string, close(): Promise<void> }>} `address` is `host:port`.
 */
export async function startNeonWsProxy({ host = "127.0.0.1", port = 0, allow, control = false }) {
  let refusing = false;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://proxy").pathname;
    if (control && request.method === "POST" && (path === "/refuse" || path === "/accept")) {
      refusing = path === "/refuse";
      response.writeHead(204).end();
      return;
    }
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server });
  wss.on("connection", (ws, request) => {
    const address = new URL(request.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    if (!allow.includes(address) || refusing) {
      ws.close(1008, "connection refused by the proxy");
      return;
    }
    const split = address.lastIndexOf(":");
    // Writes made before the TCP connection is up are queued by the socket itself.
    const socket = connect({
      host: address.slice(0, split),
      port: Number(address.slice(split + 1)),
      noDelay: true,
    });
    ws.on("message", (data) => socket.write(/** @type {Buffer} */ (data)));
    ws.on("close", () => socket.destroy());
    ws.on("error", () => socket.destroy());
    socket.on("data", (data) => ws.send(data));
    socket.on("close", () => ws.close());
    socket.on("error", () => ws.close());
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const bound = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    address: `${host}:${bound.port}`,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve(undefined));
      }),
  };
}
