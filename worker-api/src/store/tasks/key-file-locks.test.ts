import { describe, expect, it } from "vitest";
import { keyFileLockKey, keyFileLockKeys } from "./key-file-locks.js";

describe("key-file lock keys", () => {
  it("are Postgres integers, one per (plan, file), apart across plans and files", () => {
    const keys = [
      keyFileLockKey("p", "src/a.ts"),
      keyFileLockKey("p", "src/b.ts"),
      keyFileLockKey("q", "src/a.ts"),
    ];
    for (const key of keys) expect(Number.isInteger(key) && key >= -(2 ** 31) && key < 2 ** 31).toBe(true);
    expect(new Set(keys).size).toBe(3);
    // The NUL between plan and file keeps ("p/", "a") and ("p", "/a") apart.
    expect(keyFileLockKey("p/", "a")).not.toBe(keyFileLockKey("p", "/a"));
    expect(keyFileLockKey("p", "src/a.ts")).toBe(keys[0]);
  });

  it("come distinct and ascending, whatever the files' order, so claims lock in one order", () => {
    const files = ["src/z.ts", "src/a.ts", "src/m.ts", "src/a.ts"];
    const keys = keyFileLockKeys("p", files);
    expect(keys).toEqual([...new Set(files.map((file) => keyFileLockKey("p", file)))].sort((a, b) => a - b));
    expect(keys).toHaveLength(3);
    expect(keyFileLockKeys("p", [...files].reverse())).toEqual(keys);
    expect(keyFileLockKeys("p", [])).toEqual([]);
  });
});
