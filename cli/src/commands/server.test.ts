import { lookup } from "node:dns/promises";
import { existsSync, statSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runBin,
  runCli,
  scratchDir,
  spawnBin,
  waitFor,
  writePlanFile,
} from "../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { main } from "../main.js";

afterAll(() => removeAll());

/** This machine's name when it resolves, else its first external IPv4 address (what the server prints). */
async function reachableName(): Promise<string> {
  try {
    await lookup(hostname());
    return hostname();
  } catch {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === "IPv4" && !a.internal);
    return external?.address ?? "127.0.0.1";
  }
}

const BOOTSTRAP = "bootstrap-s3cret-0c4e1f";

type LogLine = { level: string; event: string; [key: string]: unknown };

/** Every stderr line of the server as a log line; a line that is not one fails the test. */
function logLines(stderr: string): LogLine[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed = JSON.parse(line) as LogLine;
      expect(parsed).toEqual(expect.objectContaining({ ts: expect.any(String), level: expect.any(String) }));
      return parsed;
    });
}

/** Starts `whilly server --port 0` as a child process and waits for the URL it prints. */
async function startServer(cwd: string, env: Record<string, string | undefined>, flags: string[] = []) {
  const proc = spawnBin(["server", "--port", "0", ...flags], { cwd, env: baseEnv(env) });
  const url = await waitFor(
    "the server's URL on stdout",
    () => /^(http:\/\/\S+)\n/m.exec(proc.out())?.[1],
    50_000,
  );
  return { proc, url };
}

describe("whilly server", () => {
  it("refuses to start without WHILLY_WORKER_BOOTSTRAP_TOKEN, naming it in a log line (exit 2)", async () => {
    const cwd = scratchDir();
    const result = await runCli(["server"], { cwd });
    expect(result.code).toBe(2);
    expect(logLines(result.err)).toEqual([
      expect.objectContaining({
        level: "error",
        event: "server.failed",
        error_code: "configuration",
        message: expect.stringContaining("WHILLY_WORKER_BOOTSTRAP_TOKEN is not set"),
      }),
    ]);
    // Checked before any I/O: no embedded store was created.
    expect(existsSync(join(cwd, ".whilly"))).toBe(false);
  });

  it("refuses a bootstrap token shorter than 16 characters, naming it and how to make one (exit 2)", async () => {
    const cwd = scratchDir();
    const result = await runBin(["server"], { cwd, env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "a" }) });
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(logLines(result.err)).toEqual([
      {
        ts: expect.any(String),
        level: "error",
        event: "server.failed",
        error_code: "configuration",
        message:
          "WHILLY_WORKER_BOOTSTRAP_TOKEN is too short (1 character); it must be at least 16 random characters, make one with: openssl rand -hex 32",
        hint: "give the new value to whoever registers workers (whilly worker register --bootstrap-token)",
      },
    ]);
    expect(existsSync(join(cwd, ".whilly"))).toBe(false);
  });

  it("rejects a bad --port as a usage error", async () => {
    const result = await runCli(["server", "--port", "70000"], {
      cwd: scratchDir(),
      env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }),
    });
    expect(result.code).toBe(2);
    expect(logLines(result.err)).toEqual([
      expect.objectContaining({
        event: "server.failed",
        error_code: "invalid_input",
        message: expect.stringContaining("--port must be a whole number from 0 to 65535"),
      }),
    ]);
  });

  describe.skipIf(!postgresAvailable())("on Postgres", () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => database?.drop());

    it("runs as a child process, answers /health, and exits 0 on SIGTERM after a graceful stop", async () => {
      const admin = "admin-s3cret-for-the-read-api";
      const { proc, url } = await startServer(scratchDir(), {
        WHILLY_DATABASE_URL: database.url,
        WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
        WHILLY_ADMIN_TOKEN: admin,
      });
      try {
        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: "ok" });
        // The read API takes the admin token only: none, or the bootstrap token, is a 401.
        const read = (token?: string) =>
          fetch(`${url}/api/v1/plans`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
        expect((await read()).status).toBe(401);
        expect((await read(BOOTSTRAP)).status).toBe(401);
        expect((await read(admin)).status).toBe(200);
        expect(logLines(proc.err())).toContainEqual(
          expect.objectContaining({ event: "server.listening", store: "postgres", listens_to_store: true }),
        );
      } finally {
        proc.child.kill("SIGTERM");
      }
      const done = await proc.done;
      expect(done.code).toBe(0);
      const lines = logLines(done.err);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "info", event: "server.signal", signal: "SIGTERM" }),
      );
      expect(lines.map((line) => line.event)).toEqual(
        expect.arrayContaining(["server.stopping", "event_buffer.drained", "server.stopped"]),
      );
      // No secret reaches the log.
      expect(done.err).not.toContain('boot"');
    });

    it("logs every claim, completion, failure and release as one JSON line, without secrets or task text", async () => {
      const repo = makeRepo();
      // Three attempts each: G-2's failure is logged going back to PENDING for a retry.
      writePlanFile(
        join(repo, "tasks.json"),
        "logged",
        [
          ["G-1", "high"],
          ["G-2", "medium"],
          ["G-3", "low"],
        ],
        { maxAttempts: 3 },
      );
      const env = { WHILLY_DATABASE_URL: database.url, WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP };
      expect((await runBin(["plan", "import", "tasks.json"], { cwd: repo, env: baseEnv(env) })).code).toBe(0);
      const { proc, url } = await startServer(scratchDir(), env);
      let token = "";
      try {
        const post = async (path: string, body: object, bearer: string) => {
          const reply = await fetch(`${url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          expect(reply.status).toBeLessThan(300);
          return (await reply.json()) as {
            worker_id: string;
            token: string;
            task: { id: string; version: number };
          };
        };
        const worker = await post("/workers/register", { hostname: "logger" }, BOOTSTRAP);
        token = worker.token;
        const fence = (task: { version: number }) => ({
          worker_id: worker.worker_id,
          plan_id: "logged",
          version: task.version,
        });
        const claim = () =>
          post("/tasks/claim", { worker_id: worker.worker_id, plan_id: "logged", start: true }, token);
        const first = (await claim()).task;
        await post(`/tasks/${first.id}/complete`, { ...fence(first), cost_usd: "0.0125" }, token);
        const second = (await claim()).task;
        await post(
          `/tasks/${second.id}/fail`,
          { ...fence(second), reason: "tests_failed", cost_usd: 0.02 },
          token,
        );
        const third = (await claim()).task;
        await post(`/tasks/${third.id}/release`, { ...fence(third), reason: "shutdown" }, token);
        const ids = { plan_id: "logged", worker_id: worker.worker_id };
        const expected = [
          { event: "task.claimed", ...ids, task_id: "G-1", status: "IN_PROGRESS", version: 2, attempts: 1 },
          {
            event: "task.completed",
            ...ids,
            task_id: "G-1",
            status: "DONE",
            version: 3,
            cost_usd: "0.012500",
          },
          { event: "task.claimed", ...ids, task_id: "G-2", status: "IN_PROGRESS", version: 2 },
          {
            event: "task.failed",
            ...ids,
            task_id: "G-2",
            // Attempts left: back to PENDING, not before the retry backoff (docs/retries.md).
            status: "PENDING",
            cost_usd: "0.020000",
            reason: "tests_failed",
          },
          { event: "task.claimed", ...ids, task_id: "G-3", status: "IN_PROGRESS" },
          { event: "task.released", ...ids, task_id: "G-3", status: "PENDING", reason: "shutdown" },
        ];
        const taskLines = () => logLines(proc.err()).filter((line) => line.event.startsWith("task."));
        await waitFor("the task log lines", () => (taskLines().length >= expected.length ? true : undefined));
        expect(taskLines()).toEqual(
          expected.map((line) => expect.objectContaining({ level: "info", ...line })),
        );
        // A claim carries no cost; a release without one names none.
        expect(
          taskLines()
            .filter((line) => "cost_usd" in line)
            .map((line) => line.event),
        ).toEqual(["task.completed", "task.failed"]);
      } finally {
        proc.child.kill("SIGTERM");
      }
      const done = await proc.done;
      expect(done.code).toBe(0);
      for (const secret of [BOOTSTRAP, token, "Do the work of"]) expect(done.err).not.toContain(secret);
      expect(done.err).not.toContain("description");
    });
  });

  describe("on the embedded store", () => {
    let template: string;
    beforeAll(async () => {
      template = await makeStoreTemplate();
    });

    it("owns .whilly/ and serves it to the other commands run there, which read and write through it", async () => {
      const repo = makeRepo(template);
      const admin = "admin-s3cret-token-5d1e";
      const { proc, url } = await startServer(repo, {
        WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
        WHILLY_ADMIN_TOKEN: admin,
      });
      const socket = join(repo, ".whilly", "whilly.sock");
      const cli = (...argv: string[]) => runCli(argv, { cwd: repo });
      try {
        expect(logLines(proc.err())).toContainEqual(
          expect.objectContaining({ event: "server.listening", store: "pglite" }),
        );
        expect(statSync(socket).mode & 0o777).toBe(0o600);
        writePlanFile(join(repo, "tasks.json"), "served", [["S-1", "high"]]);
        const imported = await cli("plan", "import", "tasks.json");
        expect(imported).toMatchObject({ code: 0, err: "" });
        expect(imported.out).toContain("imported plan 'served'");
        // A second process (this one) follows the audit log through the server while it changes.
        const stop = new AbortController();
        let followed = "";
        const follow = main(["events", "served", "-f"], {
          out: { write: (text: string) => (followed += text), isTTY: false },
          err: { write: () => true, isTTY: false },
          env: baseEnv({ WHILLY_EVENTS_POLL: "0.2" }),
          cwd: repo,
          interrupt: stop.signal,
        });
        await waitFor("the followed import", () => (followed.includes("task.created") ? true : undefined));
        expect((await cli("plan", "budget", "served", "2.5")).code).toBe(0);
        await waitFor("the followed budget change", () =>
          followed.includes("plan.budget_changed") ? true : undefined,
        );
        stop.abort();
        expect(await follow).toBe(130);
        expect((await cli("plan", "reset", "served", "--failed", "--yes")).code).toBe(0);
        const shown = await cli("plan", "show", "served");
        expect(shown).toMatchObject({ code: 0, err: "" });
        expect(shown.out).toMatch(/\[PENDING *\] S-1/);
        expect((await cli("plan", "list")).out).toMatch(/^served +/m);
        const missing = await cli("plan", "show", "nope");
        expect(missing.code).toBe(2);
        expect(missing.err).toContain("error: plan 'nope' not found\n");
        // What the commands wrote is the owner's: its read API answers with it.
        const owned = await fetch(`${url}/api/v1/plans/served`, {
          headers: { authorization: `Bearer ${admin}` },
        });
        expect(await owned.json()).toMatchObject({ id: "served", budget_usd: "2.500000" });
        const events = await cli("events", "served");
        expect(events.out).toContain("plan.budget_changed");
        // The owner still refuses a second owner: another server fails on the lock.
        const second = await runBin(["server", "--port", "0"], {
          cwd: repo,
          env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }),
        });
        expect(second.code).not.toBe(0);
        expect(second.err).toContain("in use by another whilly process");
      } finally {
        proc.child.kill("SIGINT");
      }
      const done = await proc.done;
      expect(done.code).toBe(0);
      expect(logLines(done.err)).toContainEqual(
        expect.objectContaining({ event: "server.signal", signal: "SIGINT" }),
      );
      // The socket and the lock went with the server: the next command opens the store itself.
      expect(existsSync(socket)).toBe(false);
      expect((await runCli(["plan", "list"], { cwd: repo })).code).toBe(0);
    });

    it("bound to every interface, prints a URL another machine can use, not 0.0.0.0", async () => {
      const { proc, url } = await startServer(
        makeRepo(template),
        { WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP },
        ["--host", "0.0.0.0"],
      );
      try {
        const { hostname, port } = new URL(url);
        expect(hostname).not.toBe("0.0.0.0");
        expect(hostname).toBe(await reachableName());
        expect((await fetch(`${url}/health`)).status).toBe(200);
        // The log keeps the address it is bound to.
        expect(logLines(proc.err())).toContainEqual(
          expect.objectContaining({ event: "server.listening", url: `http://0.0.0.0:${port}` }),
        );
      } finally {
        proc.child.kill("SIGTERM");
      }
      expect((await proc.done).code).toBe(0);
    });

    it("logs creating a new embedded store, and a port in use, as JSON lines too", async () => {
      const repo = makeRepo();
      const { proc, url } = await startServer(repo, { WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP });
      const port = new URL(url).port;
      try {
        expect(logLines(proc.err())).toContainEqual(
          expect.objectContaining({
            event: "server.notice",
            message: expect.stringContaining("creating the embedded store"),
          }),
        );
        const busy = await runBin(["server", "--port", port], {
          cwd: scratchDir(),
          env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }),
        });
        expect(busy.code).toBe(2);
        expect(logLines(busy.err)).toContainEqual(
          expect.objectContaining({
            level: "error",
            event: "server.failed",
            message: expect.stringContaining(port),
          }),
        );
      } finally {
        proc.child.kill("SIGTERM");
      }
      expect((await proc.done).code).toBe(0);
    });
  });
});
