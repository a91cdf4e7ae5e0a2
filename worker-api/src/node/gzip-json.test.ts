import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { type NodeServer, startNodeServer } from "./server.js";
import { parseServerSettings } from "./settings.js";

// The Node host gzips its JSON replies for clients that accept gzip, and never its event streams.

let store: Store;
let server: NodeServer;
beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  const settings = parseServerSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "gzip-json-test-bootstrap" });
  server = await startNodeServer({ store, settings, auth: inProcessAuth, port: 0 });
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** node:http sends exactly the headers given and does not decode the body, unlike fetch. */
function raw(path: string, headers: Record<string, string>, firstChunkOnly = false): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      const done = () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        if (firstChunkOnly) {
          req.destroy();
          done();
        }
      });
      res.on("end", done);
    });
    req.on("error", (error) => (firstChunkOnly ? undefined : reject(error)));
    req.end();
  });
}

describe("gzipped JSON on the Node host", () => {
  it("gzips a big JSON reply when the client accepts gzip, and says so", async () => {
    const plain = await raw("/openapi.json", {});
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const document = JSON.parse(plain.body.toString("utf8"));

    const zipped = await raw("/openapi.json", { "accept-encoding": "br, gzip;q=0.8" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(gunzipSync(zipped.body).toString("utf8"))).toEqual(document);
  });

  it("sends JSON as it is to a client that refuses gzip", async () => {
    const refused = await raw("/openapi.json", { "accept-encoding": "gzip;q=0, identity" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(() => JSON.parse(refused.body.toString("utf8"))).not.toThrow();
  });

  it("never compresses an event stream", async () => {
    const stream = await raw("/api/v1/events/stream", { "accept-encoding": "gzip" }, true);
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(stream.headers["content-encoding"]).toBeUndefined();
  });
});
