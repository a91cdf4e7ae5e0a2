import { describe, expect, it } from "vitest";
import { describeSystemError } from "./system-error.js";

// Errors shaped as Node shapes them: core reads their fields only. The cli's and the worker's tests
// meet the same faults from real system calls.
function nodeError(code: string, fields: Record<string, unknown>, text = "refused"): Error {
  return Object.assign(new Error(`${code}: ${text}`), { code, errno: -1, ...fields });
}

describe("describeSystemError", () => {
  it("says what failed in one line, with a general hint, exit 1", () => {
    expect(describeSystemError(nodeError("ENOTDIR", { syscall: "open", path: "/a/file/x" }))).toEqual({
      message: "cannot open /a/file/x: a part of the path is not a directory (ENOTDIR)",
      hint: "check the path: one of its directories is a file",
      exitCode: 1,
    });
  });

  it("names a command that could not start, as Node names a failed spawn", () => {
    const error = nodeError("EACCES", { syscall: "spawn /opt/claude", path: "/opt/claude" });
    expect(describeSystemError(error)?.message).toBe("cannot start /opt/claude: permission denied (EACCES)");
  });

  it("reports an address a flag chose as exit 2, with a hint that names no program's flags", () => {
    const error = nodeError("EADDRINUSE", { syscall: "listen", address: "::1", port: 8000 });
    expect(describeSystemError(error)).toEqual({
      message: "cannot listen on [::1]:8000: the port is already in use (EADDRINUSE)",
      hint: "another process listens there: stop it, or pick another port",
      exitCode: 2,
    });
  });

  it("takes the caller's own hint for a code, separately for files and addresses", () => {
    const hints = { files: { EROFS: "use the store elsewhere" }, listen: { EACCES: "pick --port 8000" } };
    const readOnly = nodeError("EROFS", { syscall: "mkdir", path: "/ro/x" });
    const privileged = nodeError("EACCES", { syscall: "listen", address: "0.0.0.0", port: 80 });
    const denied = nodeError("EACCES", { syscall: "open", path: "/x" });
    expect(describeSystemError(readOnly, undefined, hints)?.hint).toBe("use the store elsewhere");
    expect(describeSystemError(privileged, undefined, hints)?.hint).toBe("pick --port 8000");
    expect(describeSystemError(denied, undefined, hints)?.hint).toContain("ls -ld");
  });

  it("says Node's words for a code it has no entry for, and names the subject it is given", () => {
    const error = nodeError("ECONNRESET", { syscall: "write" }, "connection reset by peer, write");
    expect(describeSystemError(error, "to standard output")?.message).toBe(
      "cannot write to standard output: connection reset by peer (ECONNRESET)",
    );
  });

  it("leaves alone what is not a system error", () => {
    expect(describeSystemError(new RangeError("x"))).toBeUndefined();
    expect(describeSystemError({ code: "ERR_STREAM_DESTROYED" })).toBeUndefined();
    expect(describeSystemError(null)).toBeUndefined();
  });

  // PGlite's file system throws these: a plain object, Emscripten's errno numbers, no code, no path.
  it("words PGlite's Emscripten ErrnoError as the Node code it stands for", () => {
    const errno = (n: number) => ({ name: "ErrnoError", errno: n });
    const cases: [number, string][] = [
      [51, "cannot use the embedded database's files: no space left on the device (ENOSPC)"],
      [69, "cannot use the embedded database's files: the file system is read-only (EROFS)"],
      [2, "cannot use the embedded database's files: permission denied (EACCES)"],
      [44, "cannot use the embedded database's files: no such file or directory (ENOENT)"],
      [20, "cannot use the embedded database's files: something with that name is in the way (EEXIST)"],
      [54, "cannot use the embedded database's files: a part of the path is not a directory (ENOTDIR)"],
      [31, "cannot use the embedded database's files: it is a directory (EISDIR)"],
    ];
    for (const [n, message] of cases) expect(describeSystemError(errno(n))?.message).toBe(message);
    expect(describeSystemError(errno(51))?.hint).toContain("df -h");
    expect(describeSystemError({ cause: errno(51) }, "the store")?.message).toBe(
      "cannot use the store: no space left on the device (ENOSPC)",
    );
    expect(describeSystemError(errno(9999))).toBeUndefined();
    expect(describeSystemError({ name: "Other", errno: 51 })).toBeUndefined();
  });
});
