import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

/** A control plane served for a test: its base URL and how to stop it. */
export type LoopbackServer = { readonly url: string; close(): Promise<void> };

/**
 * Serves `app` over real HTTP on 127.0.0.1 at a free port, for tests of clients (whilly-worker, the
 * CLI's `--connect`) against a real socket rather than `app.request`.
 */
export function serveOnLoopback(app: { fetch: (request: Request) => Response | Promise<Response> }) {
  return new Promise<LoopbackServer>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
