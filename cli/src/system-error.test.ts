import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeSystemError } from "./system-error.js";

// Real errors from real system calls where the machine can make them (also as root); the rest, which
// need another user or a read-only mount, shaped as Node shapes them.
const dir = mkdtempSync(join(tmpdir(), "whilly-syserr-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "file");
writeFileSync(file, "x");

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** An error as Node makes one for a failed system call. */
function nodeError(code: string, syscall: string, path: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), {
    code,
    syscall,
    path,
    errno: -1,
  });
}

describe("describeSystemError", () => {
  it.each([
    [
      () => readFileSync(join(dir, "none")),
      `cannot open ${join(dir, "none")}: no such file or directory (ENOENT)`,
    ],
    [
      () => readFileSync(join(file, "x")),
      `cannot open ${join(file, "x")}: a part of the path is not a directory (ENOTDIR)`,
    ],
    [() => readFileSync(dir), "cannot read: it is a directory (EISDIR)"],
    [
      () => mkdirSync(file, { recursive: true }),
      `cannot create the directory ${file}: something with that name is in the way (EEXIST)`,
    ],
  ])("says what a real fault is in one line (%#)", (call, message) => {
    const report = describeSystemError(thrown(call));
    expect(report?.message).toBe(message);
    expect(report?.exitCode).toBe(1);
    expect(report?.hint).not.toBe("");
  });

  it.skipIf(!existsDevFull())("reports a full disk (a real ENOSPC from /dev/full)", () => {
    const fd = openSync("/dev/full", "w");
    const error = thrown(() => writeSync(fd, "x"));
    closeSync(fd);
    expect(describeSystemError(error, "to standard output")).toEqual({
      message: "cannot write to standard output: no space left on the device (ENOSPC)",
      hint: "free some space on that file system (df -h shows which one is full), then run again",
      exitCode: 1,
    });
  });

  it("reports a port in use as a usage error (exit 2) naming address and port", async () => {
    const holder = await listen(createServer(), 0);
    const port = (holder.address() as { port: number }).port;
    const error = await listen(createServer(), port).catch((e: unknown) => e);
    holder.close();
    expect(describeSystemError(error)).toEqual({
      message: `cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE)`,
      hint: "another process listens there: stop it, or pick another --port (--port 0 takes any free one)",
      exitCode: 2,
    });
  });

  it.each([
    [
      nodeError("EACCES", "open", "/srv/plan.json", "permission denied"),
      "cannot open /srv/plan.json: permission denied (EACCES)",
    ],
    [
      nodeError("EPERM", "unlink", "/srv/x.lock", "operation not permitted"),
      "cannot delete /srv/x.lock: operation not permitted (EPERM)",
    ],
    [
      nodeError("EROFS", "mkdir", "/ro/.whilly", "read-only file system"),
      "cannot create the directory /ro/.whilly: the file system is read-only (EROFS)",
    ],
    [
      nodeError("EDQUOT", "write", "/q/f", "disk quota exceeded"),
      "cannot write /q/f: the disk quota is exceeded (EDQUOT)",
    ],
    [
      nodeError("EXDEV", "rename", "/a", "cross-device link not permitted"),
      "cannot rename /a: cross-device link not permitted (EXDEV)",
    ],
    [
      Object.assign(new Error("uv_cwd"), { code: "ENOENT", syscall: "uv_cwd" }),
      "cannot use the current directory: no such file or directory (ENOENT)",
    ],
  ])("says what a fault of another user or mount is (%#)", (error, message) => {
    expect(describeSystemError(error)?.message).toBe(message);
  });

  it("finds the system error along a chain of causes, as drivers wrap it", () => {
    const cause = nodeError("ENOSPC", "write", "/d/pgdata/base/1", "no space left on device");
    const wrapped = new Error("query failed", { cause: new Error("driver", { cause }) });
    expect(describeSystemError(wrapped)?.message).toBe(
      "cannot write /d/pgdata/base/1: no space left on the device (ENOSPC)",
    );
  });

  it("leaves alone what is not a system error: a bug keeps its stack", () => {
    expect(describeSystemError(new TypeError("x is undefined"))).toBeUndefined();
    expect(
      describeSystemError(Object.assign(new Error("bad"), { code: "ERR_INVALID_ARG_TYPE" })),
    ).toBeUndefined();
    expect(describeSystemError("text")).toBeUndefined();
    expect(describeSystemError(undefined)).toBeUndefined();
  });
});

function existsDevFull(): boolean {
  try {
    closeSync(openSync("/dev/full", "w"));
    return true;
  } catch {
    return false;
  }
}

function listen(server: Server, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
