import { StoreUnavailable } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { retryOnce, translateError } from "./errors.js";

// Shaped as drizzle throws it over PGlite or node-postgres: the SQLSTATE on the wrapper's cause.
function failedQuery(code: string, message: string): Error {
  const cause = Object.assign(new Error(message), { code });
  return new Error("Failed query: insert into tasks values ($1)\nparams: SECRET", { cause });
}

describe("translateError", () => {
  it("words a database short of disk, memory or I/O as unavailable, without the query", () => {
    const cases = [
      ["53100", 'could not extend file "base/5/16482": No space left on device'],
      ["53200", "out of memory"],
      ["58030", "could not write block 7"],
    ] as const;
    for (const [code, text] of cases) {
      const error = translateError(failedQuery(code, text));
      expect(error).toBeInstanceOf(StoreUnavailable);
      expect((error as StoreUnavailable).message).toBe(`the database cannot write: ${text} (${code})`);
      expect((error as StoreUnavailable).hint).toContain("free space");
    }
  });
});

describe("retryOnce", () => {
  const failing = (codes: string[]) => {
    let calls = 0;
    const op = async () => {
      const code = codes[calls++];
      if (code !== undefined) throw Object.assign(new Error(`failed with ${code}`), { code });
      return calls;
    };
    return { op, calls: () => calls };
  };

  it.each(["40P01", "40001"])("runs an operation aborted with %s once more", async (code) => {
    const { op } = failing([code]);
    expect(await retryOnce(op)).toBe(2);
  });

  it("answers a second abort, and never retries other errors", async () => {
    const twice = failing(["40P01", "40P01"]);
    await expect(retryOnce(twice.op)).rejects.toMatchObject({ code: "40P01" });
    expect(twice.calls()).toBe(2);
    const other = failing(["23505"]);
    await expect(retryOnce(other.op)).rejects.toMatchObject({ code: "23505" });
    expect(other.calls()).toBe(1);
  });
});
