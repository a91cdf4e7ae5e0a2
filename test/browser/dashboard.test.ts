import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, ROOT, removeAll, runBin } from "../support/cli.js";
import {
  ADMIN,
  type ApiWorker,
  call,
  type DashboardServer,
  importPlan,
  launchChromium,
  registerWorker,
  signIn,
  startDashboardServer,
} from "./support.js";

// The web dashboard in Debian's Chromium against `whilly server` as a real process on its embedded
// store. Tasks change "elsewhere" through protocol v1, as a worker's would. With WHILLY_SCREENSHOTS set
// to a directory (`npm run screenshots`), the main pages are saved there as PNGs for docs/.

const SCREENSHOTS = process.env.WHILLY_SCREENSHOTS;
const WAIT = { timeout: 20_000 };

let browser: Browser;
let server: DashboardServer;
let worker: ApiWorker;
beforeAll(async () => {
  const template = await makeStoreTemplate();
  [browser, server] = await Promise.all([launchChromium(), startDashboardServer(template)]);
  worker = await registerWorker(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  removeAll();
});

/** A plan of `ids` (each after the one before when `chain`), one attempt each. */
function plan(planId: string, ids: readonly string[], chain = false) {
  return {
    project: `Plan ${planId}`,
    plan_id: planId,
    max_attempts: 1,
    tasks: ids.map((id, i) => ({
      id,
      status: "pending",
      priority: "high",
      description: `task ${id}`,
      dependencies: chain && i > 0 ? [ids[i - 1]] : [],
      acceptance_criteria: ["it works"],
    })),
  };
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  return context.newPage();
}

function row(page: Page, taskId: string) {
  return page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`);
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  const dir = join(ROOT, SCREENSHOTS);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

describe("the web dashboard in a browser", () => {
  it("asks for a token and shows no data without one", async () => {
    await importPlan(server.url, plan("secret-plan", ["S-1"]));
    const page = await newPage();
    // Nothing the browser asks for is missing: it fetches /favicon.ico unless the page names an icon, and
    // reports a miss only as a console error (that request is the browser's own, not the page's).
    const missing: string[] = [];
    page.on("console", (m) => (m.text().includes("404") ? missing.push(m.location().url) : undefined));
    await page.goto(server.url);
    await expect.poll(() => page.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("plan-row").count()).toBe(0);
    expect(await page.content()).not.toContain("secret-plan");
    // The API refuses the browser too: no cookie, no data.
    const status = await page.evaluate(async () => (await fetch("/api/v1/plans")).status);
    expect(status).toBe(401);
    await shot(page, "sign-in");

    // Keyboard only: the page starts in the token field, and Enter submits.
    expect(await page.evaluate("document.activeElement?.getAttribute('data-testid')")).toBe("signin-token");
    await page.keyboard.type("not-a-token-at-all-0000");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("signin-error").isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("plan-row").count()).toBe(0);
    expect(missing).toEqual([]);
    await page.context().close();
  });

  it("updates a task's row live when the task completes elsewhere, without a reload", async () => {
    await importPlan(server.url, plan("live", ["L-1", "L-2", "L-3"], true));
    const page = await newPage();
    await signIn(page, server.url, ADMIN);
    await expect.poll(() => page.getByTestId("plan-row").count(), WAIT).toBeGreaterThan(0);
    await shot(page, "plans");
    await page.locator('[data-testid="plan-row"][data-plan-id="live"] a').click();
    await expect.poll(() => row(page, "L-1").getAttribute("data-status"), WAIT).toBe("PENDING");
    await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT).toBe("live");
    await page.evaluate(() => {
      (globalThis as unknown as { noReload: boolean }).noReload = true;
    });

    const task = await worker.claim("live");
    expect(task?.id).toBe("L-1");
    await expect.poll(() => row(page, "L-1").getAttribute("data-status"), WAIT).toBe("IN_PROGRESS");
    if (task) await worker.complete("live", task);
    await expect.poll(() => row(page, "L-1").getAttribute("data-status"), WAIT).toBe("DONE");
    expect(await page.evaluate(() => (globalThis as unknown as { noReload?: boolean }).noReload)).toBe(true);
    await shot(page, "plan");
    await page.context().close();
  });

  it("resets a failed task from its page, after a confirmation, end to end", async () => {
    await importPlan(server.url, plan("broken", ["B-1"]));
    const task = await worker.claim("broken");
    if (!task) throw new Error("nothing to claim in plan broken");
    await worker.fail("broken", task, "tests failed");
    const page = await newPage();
    await signIn(page, server.url, ADMIN);
    await page.goto(`${server.url}/#/plans/broken/tasks/B-1`);
    await expect.poll(() => page.getByTestId("attempt-row").count(), WAIT).toBe(1);
    await expect.poll(() => page.getByTestId("task-page").textContent(), WAIT).toContain("tests failed");
    await shot(page, "task");

    await page.getByTestId("action-reset").click();
    await expect.poll(() => page.getByTestId("confirm-dialog").isVisible(), WAIT).toBe(true);
    await page.getByTestId("confirm-yes").click();
    await expect.poll(() => page.getByTestId("action-done").isVisible(), WAIT).toBe(true);
    const { tasks } = (await call(server.url, "GET", "/api/v1/plans/broken/tasks", ADMIN)) as {
      tasks: { id: string; status: string }[];
    };
    expect(tasks.find((t) => t.id === "B-1")?.status).toBe("PENDING");
    const { events } = (await call(server.url, "GET", "/api/v1/plans/broken/events", ADMIN)) as {
      events: { event_type: string }[];
    };
    // The operator's retry is the audit log's RESET of that task (the REQUEUE edge).
    expect(events.map((e) => e.event_type)).toContain("RESET");
    await page.context().close();
  });

  it("lets a read-only token look but not act", async () => {
    const minted = await runBin(["token", "create", "--read-only", "--label", "viewer"], {
      cwd: server.cwd,
      env: server.env,
    });
    expect(minted.code, minted.err).toBe(0);
    const page = await newPage();
    await signIn(page, server.url, minted.out.trim());
    await expect.poll(() => page.getByTestId("role").getAttribute("data-role"), WAIT).toBe("read");
    await page.goto(`${server.url}/#/workers`);
    await expect.poll(() => page.getByTestId("workers-page").isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("action-pause").isDisabled()).toBe(true);
    await shot(page, "workers");
    await page.context().close();
  });

  it("shows the server unreachable while it is stopped and is live again after it restarts", async () => {
    await importPlan(server.url, plan("restart", ["R-1"]));
    const page = await newPage();
    await signIn(page, server.url, ADMIN);
    await page.goto(`${server.url}/#/plans/restart`);
    await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT).toBe("live");
    await server.stop();
    // Down for a while, the page says so (the end of a `whilly run --ui` looks the same) and keeps trying.
    await expect
      .poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT)
      .toBe("offline");
    expect(await page.getByTestId("stream-state").getAttribute("title")).toContain("whilly run --ui");
    await server.restart();
    await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT).toBe("live");

    const task = await worker.claim("restart");
    if (!task) throw new Error("nothing to claim in plan restart");
    await worker.complete("restart", task);
    await expect.poll(() => row(page, "R-1").getAttribute("data-status"), WAIT).toBe("DONE");
    await page.context().close();
  });
});
