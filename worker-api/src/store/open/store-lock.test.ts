import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { StoreLocked } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireStoreLock, lockPathFor } from "./store-lock.js";

describe("acquireStoreLock", () => {
  let dir: string;
  let dataDir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "whilly-lock-"));
    dataDir = join(dir, ".whilly", "pgdata");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The pid of a process that has exited: nothing runs under it now. */
  function deadPid(): number {
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    return Number(child.stdout);
  }

  it("writes pid, hostname and start time beside the data directory, and removes them on release", () => {
    const lock = acquireStoreLock(dataDir);
    expect(lock.path).toBe(join(dir, ".whilly", "pgdata.lock"));
    const owner = JSON.parse(readFileSync(lock.path, "utf8"));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(Number.isNaN(Date.parse(owner.startedAt))).toBe(false);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    lock.release();
  });

  /** The StoreLocked `acquireStoreLock(dataDir)` throws; fails the test when it does not. */
  function refusal(): StoreLocked {
    try {
      acquireStoreLock(dataDir).release();
    } catch (error) {
      expect(error).toBeInstanceOf(StoreLocked);
      return error as StoreLocked;
    }
    throw new Error("expected StoreLocked");
  }

  it("records the holder's command and names it to a refused opener", () => {
    const lock = acquireStoreLock(dataDir, { command: "dashboard" });
    expect(JSON.parse(readFileSync(lock.path, "utf8"))).toMatchObject({ command: "dashboard" });
    const error = refusal();
    expect(error.holder?.command).toBe("dashboard");
    expect(error.message).toContain(
      `in use by another whilly process (\`whilly dashboard\`, pid ${process.pid} `,
    );
    lock.release();
  });

  it("refuses a second holder while the first lives, naming its pid, the lock file and since when", () => {
    const lock = acquireStoreLock(dataDir);
    const { startedAt } = JSON.parse(readFileSync(lock.path, "utf8"));
    const error = refusal();
    expect(error).toMatchObject({
      code: "store_locked",
      ownerPid: process.pid,
      dataDir,
      lockPath: lock.path,
    });
    expect(error.message).toBe(
      `the embedded store at ${dataDir} is in use by another whilly process (pid ${process.pid} on host '${hostname()}' (this one), since ${startedAt}; lock file ${lock.path})`,
    );
    expect(error.hint).toBe(
      `wait for it to finish (or stop it: kill ${process.pid}), or set WHILLY_DATABASE_URL to share a Postgres server between processes`,
    );
    lock.release();
    acquireStoreLock(dataDir).release();
  });

  it("takes over a lock whose process is dead on this host", () => {
    const path = lockPathFor(dataDir);
    acquireStoreLock(dataDir).release();
    const pid = deadPid();
    writeFileSync(
      path,
      JSON.stringify({ pid, hostname: hostname(), startedAt: "2020-01-01T00:00:00Z", token: "old" }),
    );
    const lock = acquireStoreLock(dataDir);
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("treats a lock from another host as held, and says which file to delete if that host is gone", () => {
    const path = lockPathFor(dataDir);
    acquireStoreLock(dataDir).release();
    const other = `not-${hostname()}`;
    const since = "2026-01-02T03:04:05.000Z";
    const pid = deadPid();
    writeFileSync(path, JSON.stringify({ pid, hostname: other, startedAt: since, token: "t" }));
    const error = refusal();
    expect(error.message).toBe(
      `the embedded store at ${dataDir} is in use by another whilly process (pid ${pid} on host '${other}', since ${since}; lock file ${path}); this host cannot tell whether it still runs`,
    );
    expect(error.hint).toBe(
      `if no whilly process runs on '${other}' any more (a replaced container, say), delete ${path} and run again; else wait for it to finish, or set WHILLY_DATABASE_URL to share a Postgres server between processes`,
    );
    expect(existsSync(path)).toBe(true);
    // The fix the hint gives works.
    rmSync(path);
    acquireStoreLock(dataDir).release();
  });

  it("takes over a lock naming this very pid under another token (a restarted container's pid)", () => {
    const path = lockPathFor(dataDir);
    acquireStoreLock(dataDir).release();
    writeFileSync(
      path,
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: "x", token: "previous-life" }),
    );
    const lock = acquireStoreLock(dataDir);
    expect(JSON.parse(readFileSync(path, "utf8")).token).not.toBe("previous-life");
    lock.release();
  });

  it.skipIf(!existsSync("/proc/self/stat"))(
    "takes over a lock whose pid now belongs to a process that started later",
    async () => {
      const path = lockPathFor(dataDir);
      const lock = acquireStoreLock(dataDir);
      const mine = JSON.parse(readFileSync(path, "utf8"));
      expect(mine.process).toMatch(/^[0-9a-f-]+:\d+$/);
      lock.release();
      // A live process on this host whose identity is not the one the lock recorded: the pid was reused.
      const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      try {
        const owner = (process: string) =>
          JSON.stringify({ pid: other.pid, hostname: hostname(), startedAt: "x", token: "t", process });
        const [boot] = String(mine.process).split(":");
        const stat = readFileSync(`/proc/${other.pid}/stat`, "utf8");
        const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
        // Recorded as it is, the live process holds the lock.
        writeFileSync(path, owner(`${boot}:${started}`));
        expect(refusal().ownerPid).toBe(other.pid);
        // Recorded with another start time, the pid was reused: the lock is stale.
        writeFileSync(path, owner(`${boot}:1`));
        acquireStoreLock(dataDir).release();
        expect(existsSync(path)).toBe(false);
      } finally {
        other.kill("SIGKILL");
      }
    },
  );

  it("release leaves alone a lock that another process took over meanwhile", () => {
    const lock = acquireStoreLock(dataDir);
    const theirs = JSON.stringify({
      pid: process.pid,
      hostname: hostname(),
      startedAt: "x",
      token: "theirs",
    });
    writeFileSync(lock.path, theirs);
    lock.release();
    expect(readFileSync(lock.path, "utf8")).toBe(theirs);
  });
});
