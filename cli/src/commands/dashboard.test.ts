import { execFileSync } from "node:child_process";
import { parsePlanObject } from "@whilly/core";
import { createTokenAuth, openPostgresStore, type Store, startNodeServer } from "@whilly/worker-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  removeAll,
  runCli,
  spawnBin,
  WHILLY_BIN,
  waitFor,
} from "../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { parseServerSettings } from "../../../worker-api/src/node/settings.js";

// `whilly dashboard` on Postgres: full-screen in a real terminal (tmux) on a control plane (`--connect`),
// following tasks a worker moves through the protocol and resetting a FAILED task after its
// confirmation; and plain text snapshots from the store when stdout is not a terminal.

const tasks = [
  { id: "A", status: "pending", priority: "high", description: "build the parser" },
  { id: "B", status: "pending", priority: "low", description: "write the docs" },
];

describe.skipIf(!postgresAvailable())("whilly dashboard", () => {
  const ADMIN = "admin-s3cret-for-dashboard-cli";
  const BOOTSTRAP = "bootstrap-s3cret-for-dashboard";
  let database: TestDatabase;
  let store: Store;
  let server: Awaited<ReturnType<typeof startNodeServer>>;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url, { max: 2 });
    await store.importPlan(parsePlanObject({ project: "dash", max_attempts: 1, tasks }, "test"), {
      budgetMicroUsd: 5_000_000,
    });
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
      WHILLY_ADMIN_TOKEN: ADMIN,
      WHILLY_EVENTS_POLL: "0.2",
    });
    server = await startNodeServer({ store, settings, auth: createTokenAuth(settings.auth), port: 0 });
  });
  afterAll(async () => {
    await server?.close(1000);
    await store?.close();
    await database?.drop();
    removeAll();
  });

  /** One protocol call as a worker (or the bootstrap token) makes it. */
  async function call(path: string, token: string, body: object): Promise<Record<string, unknown>> {
    const reply = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!reply.ok) throw new Error(`${path} answered ${reply.status}: ${await reply.text()}`);
    return (await reply.json()) as Record<string, unknown>;
  }

  describe("on a terminal", () => {
    const socket = `whilly-dash-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
    const screen = () => tmux("capture-pane", "-p");
    const shows = (what: string, pattern: RegExp) =>
      waitFor(what, () => (pattern.test(screen()) ? true : undefined), 30_000).catch((error: Error) => {
        throw new Error(`${error.message}; the screen:\n${screen()}`);
      });
    afterEach(() => {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
    });

    it("shows a plan live over --connect, resets a FAILED task after y, and q restores the terminal with exit 0", async () => {
      const worker = await call("/workers/register", BOOTSTRAP, { hostname: "test" });
      const [id, token] = [String(worker.worker_id), String(worker.token)];
      const claim = async () => {
        const reply = await call("/tasks/claim", token, { worker_id: id, plan_id: "dash", start: true });
        const task = reply.task as { id: string; version: number };
        return { worker_id: id, plan_id: "dash", version: task.version, id: task.id };
      };
      const a = await claim();
      const progress = { phase: "agent", last_tool: "Edit", turns: 3 };
      await call(`/workers/${id}/heartbeat`, token, {
        worker_id: id,
        tasks: [{ plan_id: "dash", task_id: "A", progress }],
      });

      const env = {
        ...baseEnv({ WHILLY_ADMIN_TOKEN: ADMIN, WHILLY_DASHBOARD_REFRESH: "0.2", WHILLY_EVENTS_POLL: "0.2" }),
        TERM: "screen-256color",
      };
      // `env -i`: exactly this environment (no CI variable, with which Ink draws only the last frame).
      const vars = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
      const argv = ["env", "-i", ...vars, process.execPath, WHILLY_BIN, "dashboard", "--connect", server.url];
      const command = argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
      tmux(
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "40",
        "-c",
        makeRepo(),
        `${command}; echo EXITED $?; sleep 60`,
      );

      // The step comes from the heartbeat's event on the stream.
      const worker12 = id.slice(0, 12);
      await shows(
        "the running task",
        new RegExp(`A +IN_PROGRESS +${worker12}\\S* +1 +\\d+s +- +agent Edit t3 +build the parser`),
      );
      expect(screen()).toMatch(/\$0\.00 of \$5\.00 spent, \$5\.00 left/);
      expect(screen()).toMatch(new RegExp(`${id} {2}A {2}heard \\d+s ago`));

      const { id: _a, ...aFence } = a;
      await call("/tasks/A/complete", token, { ...aFence, cost_usd: "0.25" });
      await shows("the finished task", /A +DONE +- +1 +- +\$0\.25 /);
      await shows("the new spend", /\$0\.25 of \$5\.00 spent, \$4\.75 left/);
      const { id: _b, ...bFence } = await claim();
      await call("/tasks/B/fail", token, { ...bFence, reason: "tests failed" });
      await shows("the failed task", /B +FAILED/);

      // A filter keeps B only, Esc clears it; then B is selected and reset after its confirmation.
      tmux("send-keys", "/", "failed");
      await shows("the filter", /\/failed_/);
      expect(screen()).not.toMatch(/A +DONE/);
      tmux("send-keys", "Escape");
      await shows("both tasks again", /A +DONE[\s\S]*B +FAILED/);
      tmux("send-keys", "j");
      await shows("the selection on B", /> B +FAILED/);
      tmux("send-keys", "x");
      await shows("the question", /reset B to PENDING\? \[y\/N\]/);
      tmux("send-keys", "y");
      await shows("the reset task", /> B +PENDING/);
      await shows("the outcome", /reset B to PENDING: done/);
      const events = await store.listEvents("dash", { limit: 1000 });
      expect(events.filter((e) => e.eventType === "RESET").map((e) => e.taskId)).toEqual(["B"]);
      // An action the task's status refuses says so at once, without a question; the view goes on.
      tmux("send-keys", "x");
      await shows("the refusal", /B is PENDING; only a FAILED task can be reset/);
      // A key other than y answers a question by cancelling it, and says so.
      tmux("send-keys", "P");
      await shows("the pause question", /pause all workers\? \[y\/N\]/);
      tmux("send-keys", "j");
      await shows("the cancel", /pause all workers: cancelled \(only y confirms\)/);

      tmux("send-keys", "q");
      await shows("a clean exit", /EXITED 0/);
      // The terminal is as it was: the dashboard drew on the alternate screen, which is gone.
      expect(screen()).not.toContain("q quit");
    });
  });

  it("prints plain snapshots of the store without a terminal, and names --plan and a refused token", async () => {
    const cwd = makeRepo();
    const env = baseEnv({
      WHILLY_DATABASE_URL: database.url,
      NO_COLOR: "1",
      WHILLY_DASHBOARD_REFRESH: "0.1",
    });
    const once = await runCli(["dashboard", "--once"], { cwd, env, tty: false });
    expect(once.code, once.err).toBe(0);
    expect(once.out).toMatch(/^plan dash \(dash\) {2}\d{4}-/);
    expect(once.out).toMatch(/^ID +STATUS +WORKER +ATT +ELAPSED +COST +STEP +DESCRIPTION$/m);
    expect(once.out).toMatch(/^A +\w+ +.* build the parser$/m);
    // The store's figures as they are: the log replayed from its start counts no attempt twice.
    for (const t of await store.listTasks("dash")) {
      expect(once.out).toMatch(new RegExp(`^${t.id} +${t.status} +\\S+ +${t.attempts} `, "m"));
    }
    expect(once.out).toContain("of $5.00 spent");
    expect(once.out).toMatch(/task\.created {2}A/);
    expect(once.out).not.toContain("\u001b");

    // Without --once: a snapshot every refresh until Ctrl-C (130), with no escape codes.
    const proc = spawnBin(["dashboard", "--plan", "dash"], { cwd, env });
    await waitFor("two snapshots", () => (proc.out().split("\nplan dash").length > 2 ? true : undefined));
    proc.child.kill("SIGINT");
    const done = await proc.done;
    expect(done.code, done.err).toBe(130);
    expect(done.out).not.toContain("\u001b");

    const refused = await runCli(["dashboard", "--once", "--connect", server.url], {
      cwd,
      env: baseEnv({ WHILLY_READ_TOKEN: "whilly_read_not-a-real-token" }),
    });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/answered 401[\s\S]*hint: set WHILLY_READ_TOKEN .* WHILLY_ADMIN_TOKEN/);

    // Over --connect the workers' pause comes from GET /api/v1/workers and shows in the title line.
    await store.pauseWorkers();
    const paused = await runCli(["dashboard", "--once", "--plan", "dash", "--connect", server.url], {
      cwd,
      env: baseEnv({ WHILLY_ADMIN_TOKEN: ADMIN, NO_COLOR: "1" }),
    });
    await store.resumeWorkers();
    expect(paused.code, paused.err).toBe(0);
    expect(paused.out).toMatch(/^plan dash \(dash\) {2}\S+ {2}workers paused$/m);

    await store.importPlan(parsePlanObject({ project: "other", tasks }, "test"));
    const two = await runCli(["dashboard", "--once", "--connect", server.url], {
      cwd,
      env: baseEnv({ WHILLY_ADMIN_TOKEN: ADMIN }),
    });
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/there are 2 plans; name one with --plan\nhint: e\.g\. whilly dashboard --plan /);
  });
});
