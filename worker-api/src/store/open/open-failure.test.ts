import { ConfigurationError, describeSystemError, StoreLocked } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { openFailure } from "./open-failure.js";

const dataDir = "/repo/.whilly/pgdata";

// Shaped as PGlite throws them: its file system's ErrnoError is a plain object with Emscripten's errno.
describe("openFailure", () => {
  it("turns PGlite's ErrnoError into a system error that names the data directory", () => {
    const failure = openFailure({ name: "ErrnoError", errno: 51 }, dataDir);
    expect(describeSystemError(failure)).toEqual({
      message: `cannot use ${dataDir}: no space left on the device (ENOSPC)`,
      hint: "free some space on that file system (df -h shows which one is full), then run again",
      exitCode: 1,
    });
    expect(describeSystemError(openFailure({ name: "ErrnoError", errno: 69 }, dataDir))?.message).toBe(
      `cannot use ${dataDir}: the file system is read-only (EROFS)`,
    );
  });

  it("turns a Postgres that cannot start on the files into a configuration error naming them", () => {
    const failure = openFailure(new Error("PGlite failed to initialize properly"), dataDir);
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect((failure as ConfigurationError).message).toBe(
      `cannot open the embedded store in ${dataDir}: Postgres could not start on its files`,
    );
    expect((failure as ConfigurationError).hint).toContain(`may read and write ${dataDir}`);
    expect((failure as ConfigurationError).hint).toContain("free space");
  });

  it("passes whilly's own errors and unknown ones through", () => {
    const locked = new StoreLocked(dataDir, `${dataDir}.lock`, undefined);
    expect(openFailure(locked, dataDir)).toBe(locked);
    const bug = new TypeError("x is undefined");
    expect(openFailure(bug, dataDir)).toBe(bug);
  });
});
