import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import type { Logger } from "../ports/index.js";
import { openInMemoryStore } from "../store/open/embedded.js";
import type { Store } from "../store/store.js";
import { type NodeServer, startNodeServer } from "./server.js";
import { parseServerSettings } from "./settings.js";
import { loadStaticSite, WEB_SECURITY_HEADERS } from "./static-site.js";

const JS = "app.0123456789.js";
const CSS = "app.abcdef0123.css";
let store: Store;
let work: string;
let server: NodeServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "whilly-static-"));
  const dist = join(work, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>whilly</title>");
  writeFileSync(join(dist, "assets", JS), "console.log(1)");
  writeFileSync(join(dist, "assets", CSS), "body{}");
  // Beside dist, where a traversal from /assets/ would land.
  writeFileSync(join(work, "secret.txt"), "do not serve");
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  server = await serve(dist);
});
afterAll(async () => {
  await server?.close();
  await store?.close();
  rmSync(work, { recursive: true, force: true });
});

function serve(webDir: string, log?: Logger) {
  const settings = parseServerSettings({
    WHILLY_WORKER_BOOTSTRAP_TOKEN: "static-site-test-bootstrap",
    WHILLY_WEB_DIR: webDir,
  });
  return startNodeServer({ store, settings, auth: inProcessAuth, port: 0, log });
}

/** A raw request: fetch would resolve `..` and `%2e%2e` before sending, node:http sends the path as written. */
function raw(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { path }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the Node host's web dashboard", () => {
  it("serves index.html at / and /index.html, uncached, with the security headers", async () => {
    for (const path of ["/", "/index.html"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("<!doctype html><title>whilly</title>");
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS))
        expect(response.headers.get(name)).toBe(value);
    }
  });

  it("serves hashed assets with their content type, cached for good", async () => {
    const js = await fetch(`${server.url}/assets/${JS}`);
    expect(js.status).toBe(200);
    expect(await js.text()).toBe("console.log(1)");
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.headers.get("x-content-type-options")).toBe("nosniff");
    const css = await fetch(`${server.url}/assets/${CSS}`, { method: "HEAD" });
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toBe("");
  });

  it("answers 404 for an unknown asset and never serves a file outside the site", async () => {
    expect((await fetch(`${server.url}/assets/app.ffffffffff.js`)).status).toBe(404);
    for (const path of [
      "/assets/../../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/assets/..\\..\\secret.txt",
      "/assets/%2e%2e%5c%2e%2e%5csecret.txt",
      "/../secret.txt",
    ]) {
      const response = await raw(server.url, path);
      expect(response.body).not.toContain("do not serve");
      // Node's parser refuses a raw backslash outright (400); every other spelling is an unknown asset.
      expect([400, 404]).toContain(response.status);
    }
  });

  it("leaves every other path to the control plane", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await fetch(`${server.url}/api/v1/plans`)).status).toBe(200);
    // A write to / is no page request: the app answers it.
    expect(
      (await fetch(`${server.url}/`, { method: "POST" })).headers.get("content-security-policy"),
    ).toBeNull();
  });

  it("starts without a built dashboard and says how to build it", async () => {
    const logged: string[] = [];
    const missing = await serve(join(work, "nowhere"), (level, event, fields) =>
      logged.push(`${level} ${event} ${JSON.stringify(fields)}`),
    );
    try {
      expect(logged).toContain(`warn server.web_not_built ${JSON.stringify({ dir: join(work, "nowhere") })}`);
      const response = await fetch(`${missing.url}/`);
      expect(response.status).toBe(503);
      expect(await response.text()).toContain("npm run build -w @whilly/web");
      expect((await fetch(`${missing.url}/health`)).status).toBe(200);
    } finally {
      await missing.close();
    }
  });

  it("sends on Node the headers web/headers gives Workers", () => {
    const headersFile = readFileSync(new URL("../../../web/headers", import.meta.url), "utf8").toLowerCase();
    for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS))
      expect(headersFile).toContain(`  ${name}: ${value.toLowerCase()}\n`);
    expect(headersFile).toContain("  cache-control: public, max-age=31536000, immutable\n");
  });

  it("finds the built dashboard of @whilly/web when no directory is given", () => {
    const site = loadStaticSite();
    expect(site.dir).toMatch(/web[/\\]dist$/);
  });
});
