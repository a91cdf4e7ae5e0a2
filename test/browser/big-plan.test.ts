import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll } from "../support/cli.js";
import {
  ADMIN,
  type DashboardServer,
  importPlan,
  launchChromium,
  signIn,
  startDashboardServer,
} from "./support.js";

// A plan of 1,000 tasks in the web dashboard: the table is virtual (a window of rows in the DOM, the
// last task reachable by scrolling), the graph stays closed, and a phone-wide page does not scroll
// sideways. How fast it shows is measured by `npm run bench:web`, not here.

const WAIT = { timeout: 20_000 };
const COUNT = 1000;
const id = (i: number) => `T-${String(i + 1).padStart(4, "0")}`;

let browser: Browser;
let server: DashboardServer;
beforeAll(async () => {
  const template = await makeStoreTemplate();
  [browser, server] = await Promise.all([launchChromium(), startDashboardServer(template)]);
  await importPlan(server.url, {
    project: "A big plan",
    plan_id: "big",
    tasks: Array.from({ length: COUNT }, (_, i) => ({
      id: id(i),
      status: "pending",
      priority: "medium",
      description: `task ${i + 1} of a big plan, with a description long enough to need clipping on a phone`,
      dependencies: i === 0 ? [] : [id(Math.floor((i - 1) / 2))],
      acceptance_criteria: ["it works"],
    })),
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  removeAll();
});

async function openPlan(width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  await signIn(page, server.url, ADMIN);
  await page.goto(`${server.url}/#/plans/big`);
  await expect.poll(() => row(page, id(0)).isVisible(), WAIT).toBe(true);
  return page;
}

function row(page: Page, taskId: string) {
  return page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`);
}

describe("a plan of 1,000 tasks in the dashboard", () => {
  it("keeps fewer than 100 rows in the DOM and shows the last task once scrolled to the end", async () => {
    const page = await openPlan(1200, 800);
    expect(await page.getByTestId("task-count").textContent()).toBe(`${COUNT} of ${COUNT}`);
    const rows = await page.getByTestId("task-row").count();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(100);
    // Above 150 tasks the graph waits for its toggle.
    expect(await page.getByTestId("graph-toggle").getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByTestId("dep-graph").count()).toBe(0);
    expect(await row(page, id(COUNT - 1)).count()).toBe(0);

    await page.getByTestId("task-scroller").evaluate((el) => {
      const scroller = el as unknown as { scrollTop: number; scrollHeight: number };
      scroller.scrollTop = scroller.scrollHeight;
    });
    await expect.poll(() => row(page, id(COUNT - 1)).isVisible(), WAIT).toBe(true);
    expect(await row(page, id(0)).count()).toBe(0);
    expect(await page.getByTestId("task-row").count()).toBeLessThan(100);
    await page.context().close();
  });

  it("does not scroll sideways at 360 px wide, and shows the plan again after a reload", async () => {
    const page = await openPlan(360, 740);
    // The test's TypeScript has no DOM types: the page's globals are read by name.
    const widths = await page.evaluate(() => {
      const win = globalThis as unknown as {
        innerWidth: number;
        document: { documentElement: { scrollWidth: number } };
      };
      return { scroll: win.document.documentElement.scrollWidth, inner: win.innerWidth };
    });
    expect(widths.inner).toBe(360);
    expect(widths.scroll).toBeLessThanOrEqual(widths.inner);

    // A reload resumes the tab's session without waiting for the server; with the cookie gone, the
    // first reads are refused, renew the session from the tab's token and retry.
    await page.context().clearCookies();
    await page.reload();
    await expect.poll(() => row(page, id(0)).isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId("signin-form").count()).toBe(0);
    await page.context().close();
  });
});
