import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";

const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** A request as a client sends it: through the static-assets router of wrangler.toml's [assets] first. */
const get = (path: string, init?: RequestInit) =>
  env.ROUTED.fetch(`http://whilly.test${path}`, { redirect: "manual", ...init });

describe("the web dashboard on the Worker", () => {
  it("serves the built index.html at / with the security headers of web/headers", async () => {
    const index = await get("/");
    expect(index.status).toBe(200);
    expect(await index.text()).toBe(inject("webIndexHtml"));
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(index.headers.get("cache-control")).toBe("no-cache");
    expect(index.headers.get("content-security-policy")).toBe(CSP);
    expect(index.headers.get("x-content-type-options")).toBe("nosniff");
    expect(index.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("serves the page's script from /assets/, cached for good", async () => {
    const script = /src="(\/assets\/app\.[0-9a-f]+\.js)"/.exec(inject("webIndexHtml"))?.[1];
    expect(script).toBeDefined();
    const asset = await get(script ?? "/assets/none");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-security-policy")).toBe(CSP);
    expect((await asset.text()).length).toBeGreaterThan(0);
  });

  it("leaves /health, the API and the build's _headers file to the Worker", async () => {
    const health = await get("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // The read API's own auth answers, not the assets.
    const plans = await get("/api/v1/plans");
    expect(plans.status).toBe(401);
    expect(plans.headers.get("content-security-policy")).toBeNull();
    await plans.body?.cancel();
    const headersFile = await get("/_headers");
    expect(headersFile.status).toBe(404);
    expect(await headersFile.json()).toMatchObject({ error_code: "not_found" });
  });
});
