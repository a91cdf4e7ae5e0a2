import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, waitFor } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { ADMIN, BOOTSTRAP, importPlan, launchChromium, registerWorker, signIn } from "./support.js";

// The same pages from `npm run dev:workers` (wrangler dev: workerd with the Worker's static assets and
// its Durable Objects) against a database of this file's own, in Debian's Chromium.

const WAIT = { timeout: 30_000 };

let db: TestDatabase;
let browser: Browser;
let dev: ChildProcess;
let url: string;
let output = "";
beforeAll(async () => {
  db = await createTestDatabase();
  const [port, inspector] = await Promise.all([freePort(), freePort()]);
  dev = spawn(
    process.execPath,
    [
      join(ROOT, "scripts", "dev-workers.mjs"),
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--var",
      "WHILLY_EVENTS_KEEPALIVE:2",
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        WHILLY_DATABASE_URL: db.url,
        WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
        WHILLY_ADMIN_TOKEN: ADMIN,
      },
    },
  );
  for (const stream of [dev.stdout, dev.stderr]) stream?.setEncoding("utf8").on("data", (c) => (output += c));
  browser = await launchChromium();
  url = `http://127.0.0.1:${port}`;
  await waitFor(
    "wrangler dev to be ready",
    () => (/Ready on http:\/\/127\.0\.0\.1/.test(output) ? true : undefined),
    50_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; output: ${output}`);
  });
});
afterAll(async () => {
  await browser?.close();
  if (dev?.pid !== undefined && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once("exit", resolve));
    process.kill(-dev.pid, "SIGTERM");
    await exited;
  }
  await db?.drop();
});

describe("the web dashboard from wrangler dev", () => {
  it("serves the page, signs in and shows a plan's tasks live", async () => {
    await importPlan(url, {
      project: "Workers plan",
      plan_id: "on-workers",
      tasks: [
        { id: "W-1", status: "pending", priority: "high", description: "first" },
        { id: "W-2", status: "pending", priority: "low", description: "second", dependencies: ["W-1"] },
      ],
    });
    const page = await browser.newPage();
    expect((await page.goto(url))?.headers()["content-security-policy"]).toContain("default-src 'self'");
    await expect.poll(() => page.getByTestId("signin-form").isVisible(), WAIT).toBe(true);
    await signIn(page, url, ADMIN);
    await page.locator('[data-testid="plan-row"][data-plan-id="on-workers"] a').click();
    await expect.poll(() => page.getByTestId("task-row").count(), WAIT).toBe(2);
    await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), WAIT).toBe("live");

    // A worker claims and finishes a task through the Worker; the row follows without a reload.
    const worker = await registerWorker(url);
    const task = await worker.claim("on-workers");
    if (!task) throw new Error("nothing to claim in plan on-workers");
    await worker.complete("on-workers", task);
    const row = page.locator('[data-testid="task-row"][data-task-id="W-1"]');
    await expect.poll(() => row.getAttribute("data-status"), WAIT).toBe("DONE");
    await page.close();
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
