#!/usr/bin/env node
// `npm run bench:web [-- options]`: how fast the web dashboard shows a big plan. Starts `whilly server`
// as a real process on a fresh embedded store, imports a plan of --tasks tasks with dependencies, signs
// in with the admin token, then loads `#/plans/<id>` in headless Chromium (Debian's, through
// playwright-core) --repeats times, each in a fresh browser context (cold cache, a session reopened from
// the tab's token as on a reload), at 1200 × 800 and at 360 × 740. Prints a markdown table. Run by
// hand, never by CI; build first (`npm run build`).
//
// Options: --tasks 1000  --repeats 5  --out FILE (also write the report there, e.g. under bench/results/)
// Environment: WHILLY_TEST_CHROMIUM (default /usr/bin/chromium); WHILLY_BENCH_TIMELINE=1 prints each
// load's requests (start-first byte-end, ms).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { Host } from "./lib/hosts.mjs";
import { fmt, loadAverage, markdownTable, percentile, sleep } from "./lib/stats.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ADMIN = `bench-admin-${process.pid}-${Date.now()}`;
const PLAN_ID = "web-bench";
const CHROMIUM = process.env.WHILLY_TEST_CHROMIUM ?? "/usr/bin/chromium";
const VIEWPORTS = [
  { name: "1200 × 800", width: 1200, height: 800 },
  { name: "360 × 740", width: 360, height: 740 },
];

const { values: opts } = parseArgs({
  options: {
    tasks: { type: "string", default: "1000" },
    repeats: { type: "string", default: "5" },
    out: { type: "string" },
  },
});
const int = (name) => {
  const value = Number(opts[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number`);
  return value;
};
const tasks = int("tasks");
const repeats = int("repeats");
const progress = (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const repo = mkdtempSync(join(tmpdir(), "whilly-web-bench-"));
let host;
let browser;
const cleanup = async () => {
  await browser?.close().catch(() => {});
  await host?.stop().catch(() => {});
  rmSync(repo, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await cleanup();
    process.exit(130);
  });
}

try {
  const loadAtStart = loadAverage();
  progress("starting whilly server on a fresh embedded store");
  host = await startServer(repo);
  progress(`importing a plan of ${tasks} tasks`);
  await importPlan(host.url, tasks);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
    ],
  });
  const rows = [];
  for (const viewport of VIEWPORTS) {
    const runs = [];
    // One load first that is not counted: the server's first requests warm its JIT and the store.
    for (let i = 0; i <= repeats; i++) {
      const run = await loadPlanPage(browser, host.url, viewport);
      if (i > 0) runs.push(run);
      progress(`${viewport.name} #${i}: first rows ${fmt(run.firstRowMs)} ms, API ${fmt(run.apiMs)} ms`);
      if (process.env.WHILLY_BENCH_TIMELINE) progress(run.timeline.join("; "));
    }
    rows.push(summarise(viewport.name, runs));
  }
  const report = render(rows, assetSizes(), loadAtStart);
  console.log(report);
  if (opts.out) writeFileSync(opts.out, `${report}\n`);
} finally {
  await cleanup();
}

/** `whilly server --port 0` in a fresh git repository (its embedded store is created on start). */
async function startServer(cwd) {
  execFileSync("git", ["init", "-q", cwd]);
  const child = spawn(process.execPath, [join(ROOT, "cli/bin/whilly.js"), "server", "--port", "0"], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? cwd,
      WHILLY_ADMIN_TOKEN: ADMIN,
      WHILLY_WORKER_BOOTSTRAP_TOKEN: `${ADMIN}-bootstrap`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const server = new Host("node", child, "", () => [child.pid]);
  const deadline = Date.now() + 120_000;
  while (!server.url) {
    const line = server.log.find((text) => /^http:\/\/\S+$/.test(text));
    if (line) server.url = line;
    else if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`whilly server did not start: ${server.log.slice(-10).join("\n")}`);
    } else await sleep(100);
  }
  return server;
}

/** A plan of `count` tasks, each after one or two earlier ones (a layered graph, as real plans are). */
async function importPlan(url, count) {
  const id = (i) => `T-${String(i + 1).padStart(4, "0")}`;
  const plan = {
    project: "Web dashboard bench",
    plan_id: PLAN_ID,
    tasks: Array.from({ length: count }, (_, i) => ({
      id: id(i),
      status: "pending",
      priority: ["critical", "high", "medium", "low"][i % 4],
      description: `Task ${i + 1}: change module ${i % 37} and its tests so that the behaviour holds`,
      dependencies:
        i === 0 ? [] : [...new Set([id(Math.floor(i / 2)), id(i - 1)])].filter((d) => d !== id(i)),
      acceptance_criteria: ["the tests pass", "the docs say so"],
    })),
  };
  const reply = await fetch(`${url}/api/v1/plans`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(plan),
  });
  if (reply.status !== 201) throw new Error(`import: ${reply.status} ${await reply.text()}`);
}

/**
 * Signs in through the form (which stores the token in the tab), leaves the app, then loads the plan's
 * page: the app reopens its session from the token and fetches the plan, as on a reload. Times are ms
 * from the navigation's start; the first row counts once it is in the DOM and a frame has been drawn.
 */
async function loadPlanPage(b, url, viewport) {
  const context = await b.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.getByTestId("signin-token").fill(ADMIN);
    await page.getByTestId("signin-submit").click();
    await page.getByTestId("plan-row").first().waitFor();
    await page.goto("about:blank");
    await page.addInitScript(() => {
      const mark = () => {
        if (!document.querySelector('[data-testid="task-row"]')) return false;
        requestAnimationFrame(() => setTimeout(() => (globalThis.__firstRow ??= performance.now())));
        return true;
      };
      new MutationObserver((_, observer) => mark() && observer.disconnect()).observe(document, {
        childList: true,
        subtree: true,
      });
    });
    await page.goto(`${url}/#/plans/${PLAN_ID}`);
    await page.waitForFunction(() => globalThis.__firstRow !== undefined, null, { timeout: 60_000 });
    return await page.evaluate(() => {
      const entries = performance.getEntriesByType("resource");
      const tasksEntry = entries.find((e) => /\/api\/v1\/plans\/[^/]+\/tasks$/.test(e.name));
      const session = entries.find((e) => e.name.endsWith("/api/v1/session"));
      const assets = entries.filter((e) => /\/assets\//.test(e.name));
      return {
        timeline: entries.map(
          (e) =>
            `${e.name.replace(/^.*\/\/[^/]+/, "")} ${Math.round(e.startTime)}-${Math.round(e.responseStart)}-${Math.round(e.responseEnd)}`,
        ),
        firstRowMs: globalThis.__firstRow,
        apiMs: tasksEntry?.responseEnd,
        apiWaitMs: tasksEntry ? tasksEntry.responseStart - tasksEntry.requestStart : undefined,
        apiStartMs: tasksEntry?.startTime,
        sessionMs: session ? session.responseEnd - session.startTime : undefined,
        apiBytes: tasksEntry?.encodedBodySize,
        apiRawBytes: tasksEntry?.decodedBodySize,
        assetsTransferred: assets.reduce((sum, e) => sum + e.encodedBodySize, 0),
        domRows: document.querySelectorAll('[data-testid="task-row"]').length,
        horizontalScroll: document.documentElement.scrollWidth > innerWidth,
      };
    });
  } finally {
    await context.close();
  }
}

function summarise(name, runs) {
  const median = (key) =>
    percentile(
      runs.map((r) => r[key]).filter((v) => v !== undefined),
      50,
    );
  const max = (key) => Math.max(...runs.map((r) => r[key] ?? 0));
  return {
    name,
    firstRowMs: median("firstRowMs"),
    firstRowMaxMs: max("firstRowMs"),
    apiStartMs: median("apiStartMs"),
    apiMs: median("apiMs"),
    apiWaitMs: median("apiWaitMs"),
    sessionMs: median("sessionMs"),
    apiBytes: median("apiBytes"),
    apiRawBytes: median("apiRawBytes"),
    assetsTransferred: median("assetsTransferred"),
    domRows: max("domRows"),
    horizontalScroll: runs.some((r) => r.horizontalScroll),
  };
}

/** The built script and stylesheet, raw and gzipped (what a compressing host or CDN would send). */
function assetSizes() {
  const dir = join(ROOT, "web/dist/assets");
  const sizes = {};
  for (const file of readdirSync(dir)) {
    const ext = file.endsWith(".css") ? "css" : "js";
    const bytes = readFileSync(join(dir, file));
    sizes[ext] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  return sizes;
}

function render(rows, sizes, loadAtStart) {
  const kb = (n) => `${fmt(n / 1024, 1)} KiB`;
  const table = markdownTable(
    [
      "viewport",
      "first rows, median (max) ms",
      "tasks request sent, ms",
      "tasks reply done, ms",
      "server wait, ms",
      "sign-in round trip, ms",
      "tasks reply (wire / JSON)",
      "assets on the wire",
      "rows in the DOM",
      "horizontal scroll",
    ],
    rows.map((r) => [
      r.name,
      `${fmt(r.firstRowMs)} (${fmt(r.firstRowMaxMs)})`,
      fmt(r.apiStartMs),
      fmt(r.apiMs),
      fmt(r.apiWaitMs),
      fmt(r.sessionMs),
      `${kb(r.apiBytes)} / ${kb(r.apiRawBytes)}`,
      kb(r.assetsTransferred),
      r.domRows,
      r.horizontalScroll ? "yes" : "no",
    ]),
  );
  return [
    `## Web dashboard: a plan of ${fmt(tasks)} tasks, ${repeats} loads per viewport (cold cache)`,
    "",
    table,
    "",
    `Bundle: JS ${kb(sizes.js?.raw)} raw, ${kb(sizes.js?.gzip)} gzip; CSS ${kb(sizes.css?.raw)} raw, ` +
      `${kb(sizes.css?.gzip)} gzip.`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}; ` +
      `load average ${loadAtStart} at start, ${loadAverage()} at end.`,
  ].join("\n");
}
