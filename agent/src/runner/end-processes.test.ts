import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { endOrphanedAttempts, recordsDir } from "./attempt-record.js";
import { ATTEMPT_ID_VARIABLE, endAttemptProcesses } from "./end-processes.js";
import { descendantsOf, identify, isRunning, readRow, readTable } from "./proc-table.js";
import { runProcessGroup } from "./process-group.js";

// Plain child processes stand in for the agent's shells: one left behind in its own session (re-parented
// once its parent exits), one only a descendant of a known process, one whose pid is known with another
// start time (a reused pid).
const work = mkdtempSync(join(tmpdir(), "whilly-end-processes-"));
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** True when the pid runs no process any more; a zombie waiting for its new parent counts as gone. */
function gone(pid: number): boolean {
  const row = readRow(pid);
  return row === undefined || row.state === "Z" || row.state === "X";
}

/**
 * Starts `sleep 30` in a new session (`setsid`) from a shell that exits at once, as Claude Code's Bash
 * tool leaves a background command: the sleep's parent is no longer this process.
 * @returns the sleep's pid.
 */
function leaveBehind(env: Record<string, string>): number {
  const out = execFileSync("sh", ["-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
  });
  const pid = Number(out.trim());
  started.push(pid);
  return pid;
}

describe.runIf(process.platform === "linux")("ending an attempt's processes", () => {
  it("reads pid, parent and start time from /proc, and finds descendants by parent", async () => {
    const shell = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    started.push(shell.pid as number);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const row = readRow(shell.pid as number);
    expect(row).toMatchObject({ pid: shell.pid, ppid: process.pid });
    expect(row?.startTime).toBeGreaterThan(0);
    const below = descendantsOf(readTable(), [shell.pid as number]);
    expect(below.map((r) => readFileSync(`/proc/${r.pid}/comm`, "utf8").trim())).toEqual(["sleep"]);
    started.push(...below.map((r) => r.pid));
  });

  it("ends a marked process that left the group and the parent, and nothing unmarked", () => {
    const marked = leaveBehind({ [ATTEMPT_ID_VARIABLE]: "attempt-1" });
    const other = leaveBehind({ [ATTEMPT_ID_VARIABLE]: "attempt-2" });
    expect(readRow(marked)?.ppid).not.toBe(process.pid);
    expect(endAttemptProcesses({ attemptId: "attempt-1" })).toBe(1);
    expect(gone(marked)).toBe(true);
    expect(gone(other)).toBe(false);
  });

  it("ends a known process and its live descendants, unmarked", async () => {
    const shell = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    started.push(shell.pid as number);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const child = descendantsOf(readTable(), [shell.pid as number]).map((r) => r.pid);
    started.push(...child);
    const known = identify(shell.pid as number);
    expect(known).toBeDefined();
    if (known === undefined) return;
    expect(endAttemptProcesses({ attemptId: "unused", known: [known] })).toBe(2);
    expect(child).toHaveLength(1);
    expect(child.every(gone)).toBe(true);
  });

  it("leaves alone a known pid whose start time differs (the pid was reused)", () => {
    const stranger = leaveBehind({});
    const id = identify(stranger);
    if (id === undefined) throw new Error("no such process");
    expect(
      endAttemptProcesses({ attemptId: "x", known: [{ pid: stranger, startTime: id.startTime + 1 }] }),
    ).toBe(0);
    expect(isRunning(id)).toBe(true);
  });

  it("after its owner died, ends a recorded attempt's processes (pid + start time, or mark) and removes the record", () => {
    const state = join(work, "state-1");
    mkdirSync(recordsDir(state), { recursive: true });
    // An owner that is gone: a process that ran and exited.
    const dead = spawn("true");
    const deadId = { pid: dead.pid as number, start_time: 1 };
    const recorded = leaveBehind({});
    const recordedId = identify(recorded);
    const markedOnly = leaveBehind({ [ATTEMPT_ID_VARIABLE]: "orphan-1" });
    const reused = leaveBehind({});
    const reusedId = identify(reused);
    if (recordedId === undefined || reusedId === undefined) throw new Error("no such process");
    const record = (id: string, owner: object, processes: object[]) =>
      writeFileSync(
        join(recordsDir(state), `${id}.json`),
        JSON.stringify({ attempt_id: id, workdir: work, owner, processes }),
      );
    record("orphan-1", deadId, [
      { pid: recorded, start_time: recordedId.startTime },
      { pid: reused, start_time: reusedId.startTime + 7 },
    ]);
    // A live owner (this process): its attempt is still running and is left alone.
    const self = identify(process.pid);
    const liveMarked = leaveBehind({ [ATTEMPT_ID_VARIABLE]: "live-1" });
    record("live-1", { pid: process.pid, start_time: self?.startTime }, []);

    const report = endOrphanedAttempts(state);
    expect(report).toEqual({ attempts: ["orphan-1"], ended: 2 });
    expect(gone(recorded)).toBe(true);
    expect(gone(markedOnly)).toBe(true);
    expect(gone(reused)).toBe(false);
    expect(gone(liveMarked)).toBe(false);
    expect(readdirSync(recordsDir(state))).toEqual(["live-1.json"]);
  });

  it("runProcessGroup with an attempt id ends what the command left in a new session, and records it", async () => {
    const pidFile = join(work, "left.pid");
    const recorded: number[] = [];
    const result = await runProcessGroup({
      argv: ["sh", "-c", `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' >/dev/null 2>&1 & sleep 0.3`],
      cwd: work,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [ATTEMPT_ID_VARIABLE]: "group-1" },
      timeoutMs: 10_000,
      killGraceMs: 100,
      attemptId: "group-1",
      onProcesses: (ids) => recorded.push(...ids.map((id) => id.pid)),
    });
    expect(result.exitCode).toBe(0);
    const left = Number(readFileSync(pidFile, "utf8").trim());
    started.push(left);
    expect(gone(left)).toBe(true);
    expect(recorded[0]).toBeGreaterThan(1);
  });
});
