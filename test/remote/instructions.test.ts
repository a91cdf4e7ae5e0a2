import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClaudeAttempt, createTaskClient, parseClaudeSettings } from "@whilly/agent";
import { parsePlanFile } from "@whilly/core";
import { createApp, inProcessAuth, openInMemoryStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A remote worker builds its prompt from the claim reply alone: every agent_instructions key of the
// plan must reach it over the wire, in the place the prompt gives it.
const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const PLAN = join(FIXTURES, "plans", "instructions-in-the-wild.tasks.json");

let store: Store;
let dir: string;

beforeAll(async () => {
  store = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
  await store.importPlan(parsePlanFile(await readFile(PLAN, "utf8"), PLAN));
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  dir = await mkdtemp(join(tmpdir(), "whilly-remote-instructions-"));
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a remote worker's prompt", () => {
  it("gets every agent_instructions key through the claim reply, in prompt order", async () => {
    const app = createApp({
      withStore: (use) => use(store),
      auth: inProcessAuth,
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    const client = createTaskClient({
      baseUrl: "http://control.test",
      fetch: async (url, init) => app.request(url, init),
      workerId: "w1",
    });
    const claimed = await client.claim("shop-checkout");
    expect(claimed?.plan?.agent_instructions).toMatchObject({
      before_start: [
        "Read tasks.json and progress.txt before you start.",
        "Work only on the task with the given id.",
      ],
      during_work: ["Commit after each passing test step.", "Keep a note of every decision in progress.txt."],
      style: ["Use two-space indentation."],
      security: ["Never print secrets.", "Never disable TLS checks."],
      before_finish: ["Run the whole test suite once more."],
    });
    expect(claimed?.plan?.agent_instructions).not.toHaveProperty("max_retries");

    const record = join(dir, "record.json");
    const settings = parseClaudeSettings(
      { CLAUDE_BIN: join(FIXTURES, "fake-agents", "success.mjs") },
      { isRoot: false },
    );
    const run = createClaudeAttempt({
      settings,
      cwd: dir,
      timeoutMs: 20_000,
      env: { PATH: process.env.PATH, FAKE_AGENT_RECORD: record },
    });
    if (!claimed) throw new Error("nothing was claimed");
    await run({ task: claimed.task, plan: claimed.plan, signal: new AbortController().signal });
    const lines = (JSON.parse(await readFile(record, "utf8")).argv.at(-1) as string).split("\n");
    const order = [
      "Read tasks.json and progress.txt before you start.",
      "The shop is a Node.js service; use npm, not yarn.",
      "Task id: CHK-001",
      "Commit after each passing test step.",
      "## Acceptance criteria",
      "## security",
      "Never print secrets.",
      "## style",
      "Use two-space indentation.",
      "## Rules",
      "Run the whole test suite once more.",
      "Never push to main directly.",
    ];
    const positions = order.map((line) => lines.indexOf(line));
    expect(
      positions.every((p) => p >= 0),
      lines.join("\n"),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(lines.join("\n")).not.toMatch(/max_retries|reviewer|Dana/);
  });
});
