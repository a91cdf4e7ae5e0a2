import { StoreUnavailable } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { translateError } from "./errors.js";

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
