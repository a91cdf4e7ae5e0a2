import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll, runBin } from "../support/cli.js";
import {
  ADMIN,
  type DashboardServer,
  importPlan,
  launchChromium,
  signIn,
  startDashboardServer,
} from "./support.js";

// The dashboard at its edges, in Debian's Chromium against `whilly server`: a mangled `#signin=`
// link, a sign-out in one of two tabs of the same browser, a plan deleted while its page is open.

const WAIT = { timeout: 20_000 };

let browser: Browser;
let server: DashboardServer;
beforeAll(async () => {
  const template = await makeStoreTemplate();
  [browser, server] = await Promise.all([launchChromium(), startDashboardServer(template)]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  removeAll();
});

describe("signing in and out at the edges", () => {
  it("runs no inline script, inline handler or string eval in the served page (its CSP)", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(server.url);
    await expect.poll(() => page.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    // Injected as an XSS would be, from a string (the page's own world). The eval runs in a timer:
    // DevTools' own evaluation may eval.
    await page.evaluate(`(() => {
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.body.append(script);
      const div = document.createElement("div");
      div.innerHTML = '<img src="data:," onload="window.__handler = 1">';
      document.body.append(div);
      setTimeout(() => {
        try { window.__eval = new Function("return 'ran'")(); } catch { window.__eval = "blocked"; }
      }, 0);
    })()`);
    await expect.poll(() => page.evaluate("window.__eval"), WAIT).toBe("blocked");
    expect(await page.evaluate("[window.__inline ?? null, window.__handler ?? null]")).toEqual([null, null]);
    await page.context().close();
  });

  it("answers a link whose code is not valid percent-encoding with the sign-in form and a notice", async () => {
    const page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/#signin=%E0%A4`);
    await expect.poll(() => page.getByTestId("signin-error").isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("signin-error").textContent()).toContain("sign-in link did not work");
    expect(new URL(page.url()).hash).toBe("#/");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("signs every tab of the browser out when one tab signs out", async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    const second = await context.newPage();
    await signIn(first, server.url, ADMIN);
    await signIn(second, server.url, ADMIN);
    await expect.poll(() => second.getByTestId("plans-empty").isVisible(), WAIT).toBe(true);
    await expect.poll(() => first.getByTestId("signout").isVisible(), WAIT).toBe(true);
    await first.getByTestId("signout").click();
    await expect.poll(() => first.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    await expect.poll(() => second.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    // The other tab neither kept nor reopened a session: the browser holds no cookie that reads.
    await second.reload();
    await expect.poll(() => second.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    const status = await second.evaluate(async () => (await fetch("/api/v1/plans")).status);
    expect(status).toBe(401);
    await context.close();
  });

  it("tells a page open on a plan that the plan was deleted, rather than showing it live forever", async () => {
    const tasks = [
      { id: "G-1", status: "pending", priority: "high", description: "g", acceptance_criteria: ["x"] },
    ];
    await importPlan(server.url, { project: "Gone", plan_id: "gone", tasks });
    const page = await (await browser.newContext()).newPage();
    await signIn(page, server.url, ADMIN);
    await page.goto(`${server.url}/#/plans/gone`);
    await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT).toBe("live");
    const reset = await runBin(["plan", "reset", "gone", "--hard", "--yes"], {
      cwd: server.cwd,
      env: server.env,
    });
    expect(reset.code, reset.err).toBe(0);
    await expect.poll(() => page.getByTestId("load-error").isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("load-error").textContent()).toContain("not found");
    expect(await page.getByTestId("plan-page").count()).toBe(0);
    await page.context().close();
  });
});
