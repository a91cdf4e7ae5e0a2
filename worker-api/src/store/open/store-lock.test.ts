import { spawnSync } from "node:child_process";
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

  it("refuses a second holder while the first lives, naming its pid", () => {
    const lock = acquireStoreLock(dataDir);
    let error: unknown;
    try {
      acquireStoreLock(dataDir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreLocked);
    expect(error).toMatchObject({ code: "store_locked", ownerPid: process.pid, dataDir });
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

  it("treats a lock from another host as held, since its process cannot be checked", () => {
    const path = lockPathFor(dataDir);
    acquireStoreLock(dataDir).release();
    writeFileSync(
      path,
      JSON.stringify({ pid: deadPid(), hostname: `not-${hostname()}`, startedAt: "x", token: "t" }),
    );
    expect(() => acquireStoreLock(dataDir)).toThrow(StoreLocked);
  });

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
