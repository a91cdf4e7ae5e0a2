import { join } from "node:path";
import { parsePlanObject } from "@whilly/core";
import { createTokenAuth, openPostgresStore, type Store, startNodeServer } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  spawnBin,
  waitFor,
  writePlanFile,
} from "../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { parseServerSettings } from "../../../worker-api/src/node/settings.js";
import { main } from "../main.js";

// `whilly events`: a plan's audit log from the embedded store, from Postgres (following another
// connection's writes in a real child process until Ctrl-C) and from a control plane's stream.

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(() => removeAll());

type Line = { id: number; event_type: string; task_id: string | null; worker_id: string | null };

function jsonLines(out: string): Line[] {
  return out
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

describe("whilly events on the embedded store", () => {
  it("prints the log as lines and as JSON, honours --after and --limit, and refuses an unknown plan", async () => {
    const repo = makeRepo(template);
    const file = join(repo, "tasks.json");
    writePlanFile(file, "ev", [
      ["A", "high"],
      ["B", "low", ["A"]],
    ]);
    expect((await runCli(["plan", "import", file], { cwd: repo })).code).toBe(0);

    const json = await runCli(["events", "ev", "--json"], { cwd: repo });
    expect(json.code, json.err).toBe(0);
    const events = jsonLines(json.out);
    expect(events.map((e) => e.event_type)).toContain("task.created");
    expect(events.map((e) => e.task_id)).toEqual(expect.arrayContaining(["A", "B"]));
    expect(events[0]).toMatchObject({ plan_id: "ev", worker_id: null });

    const text = await runCli(["events", "ev"], { cwd: repo, env: baseEnv({ NO_COLOR: "1" }) });
    expect(text.out.split("\n")[0]).toMatch(
      /^#\d+ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}\S+ {2}(A|B|-) {2}-/,
    );
    expect(text.out).not.toContain("\u001b[");

    const first = events[0]?.id ?? 0;
    const page = await runCli(["events", "ev", "--json", "--after", String(first), "--limit", "1"], {
      cwd: repo,
    });
    expect(jsonLines(page.out).map((e) => e.id)).toEqual([events[1]?.id]);

    // --follow on the embedded store prints the log, then waits until Ctrl-C (pressed here once it
    // printed): exit 130.
    const interrupt = new AbortController();
    let followedOut = "";
    const code = await main(["events", "ev", "--follow", "--json"], {
      out: {
        write: (text: string) => {
          followedOut += text;
          setTimeout(() => interrupt.abort(), 100);
        },
      },
      err: { write: () => true },
      env: baseEnv({ WHILLY_EVENTS_POLL: "0.05" }),
      cwd: repo,
      interrupt: interrupt.signal,
    });
    expect(code).toBe(130);
    expect(jsonLines(followedOut)).toEqual(events);

    const missing = await runCli(["events", "nope"], { cwd: repo });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error: plan 'nope' not found\nhint: /m);
    const bad = await runCli(["events", "ev", "--limit", "0"], { cwd: repo });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--limit must be a whole number of at least 1; got '0'/);
  });
});

const tasks = [{ id: "A", status: "pending", priority: "high", description: "a" }];

describe.skipIf(!postgresAvailable())("whilly events on Postgres", () => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url, { max: 2 });
    await store.importPlan(parsePlanObject({ project: "pg-ev", tasks }, "test"));
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("--follow prints an event another connection commits, and exits 130 on SIGINT", async () => {
    // A poll far longer than the test: the new event arrives by LISTEN/NOTIFY.
    const env = baseEnv({ WHILLY_DATABASE_URL: database.url, WHILLY_EVENTS_POLL: "60" });
    const proc = spawnBin(["events", "pg-ev", "--follow", "--json"], { cwd: makeRepo(), env });
    try {
      await waitFor("the existing log", () => (proc.out().includes("\n") ? true : undefined), 30_000);
      await store.appendEvent({
        planId: "pg-ev",
        eventType: "COMPLETE",
        taskId: "T-1",
        payload: { worker_id: "w-9", cost_usd: "0.250000" },
      });
      const line = await waitFor("the new event", () =>
        jsonLines(proc.out()).find((e) => e.event_type === "COMPLETE"),
      );
      expect(line).toMatchObject({ task_id: "T-1", worker_id: "w-9" });
      proc.child.kill("SIGINT");
      const done = await proc.done;
      expect(done.code, done.err).toBe(130);
    } finally {
      proc.child.kill("SIGKILL");
    }
  });

  it("--connect reads a control plane's stream with a reader's token, and names a refused token", async () => {
    const admin = "admin-s3cret-for-events-cli";
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "bootstrap-s3cret-for-events",
      WHILLY_ADMIN_TOKEN: admin,
      WHILLY_EVENTS_POLL: "60",
    });
    const auth = createTokenAuth(settings.auth);
    const server = await startNodeServer({ store, settings, auth, port: 0 });
    try {
      const cwd = makeRepo();
      const env = baseEnv({ WHILLY_ADMIN_TOKEN: admin, WHILLY_EVENTS_POLL: "0.2" });
      const listed = await runCli(["events", "pg-ev", "--json", "--connect", server.url], { cwd, env });
      expect(listed.code, listed.err).toBe(0);
      const before = jsonLines(listed.out);
      expect(before.length).toBeGreaterThan(0);

      const following = runCli(
        [
          "events",
          "pg-ev",
          "--follow",
          "--json",
          "--limit",
          String(before.length + 1),
          "--connect",
          server.url,
        ],
        { cwd, env },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.appendEvent({ planId: "pg-ev", eventType: "note", payload: { worker_id: "w-3" } });
      const followed = await following;
      expect(followed.code, followed.err).toBe(0);
      const all = jsonLines(followed.out);
      expect(all.slice(0, before.length)).toEqual(before);
      expect(all.at(-1)).toMatchObject({ event_type: "note", worker_id: "w-3" });

      const refused = await runCli(["events", "pg-ev", "--connect", server.url], {
        cwd,
        env: baseEnv({ WHILLY_READ_TOKEN: "whilly_read_not-a-real-token" }),
      });
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/answered 401 missing_or_invalid_read_token/);
      expect(refused.err).toMatch(/hint: set WHILLY_READ_TOKEN/);
      const missing = await runCli(["events", "nope", "--connect", server.url], { cwd, env });
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/plan 'nope' not found/);

      // A log longer than one page of the read API (1,000) is printed whole, page after page.
      await store.importPlan(parsePlanObject({ project: "pg-long", tasks }, "test"));
      const notes = Array.from({ length: 1_000 }, (_, i) => ({
        planId: "pg-long",
        eventType: "note",
        payload: { i },
      }));
      await store.appendEvents(notes);
      const long = await runCli(["events", "pg-long", "--json", "--connect", server.url], { cwd, env });
      expect(long.code, long.err).toBe(0);
      const stored = await store.listEvents("pg-long", { limit: 10_000 });
      expect(stored.length).toBeGreaterThan(1_000);
      expect(jsonLines(long.out).map((event) => event.id)).toEqual(stored.map((event) => event.id));
    } finally {
      await server.close(1000);
    }
  });
});
