import { describe, expect, it } from "vitest";
import { describeUnexpected, errorSummary, unwrapQueryError } from "./unexpected-error.js";

// Shaped as drizzle throws it: the message is the SQL and every parameter, the driver's error the cause.
function queryError(cause?: unknown): Error {
  const message = `Failed query: insert into "tasks" values ($1, $2)\nparams: SECRET-PARAM,${"x".repeat(100_000)}`;
  return Object.assign(new Error(message), { name: "DrizzleQueryError", cause });
}
const diskFull = Object.assign(new Error('could not extend file "base/5/16482": No space left on device'), {
  code: "53100",
});

describe("unwrapQueryError", () => {
  it("replaces a failed query with its cause", () => {
    expect(unwrapQueryError(queryError(diskFull))).toBe(diskFull);
    expect(unwrapQueryError(queryError(queryError(diskFull)))).toBe(diskFull);
  });

  it("drops a failed query that has no cause, parameters and all", () => {
    const shown = unwrapQueryError(queryError());
    expect(String(shown)).toBe("Error: a database query failed");
  });

  it("leaves any other error alone", () => {
    expect(unwrapQueryError(diskFull)).toBe(diskFull);
    expect(unwrapQueryError("text")).toBe("text");
  });
});

describe("describeUnexpected and errorSummary", () => {
  it("show a failed query's cause and never its SQL parameters", () => {
    for (const text of [describeUnexpected(queryError(diskFull)), errorSummary(queryError(diskFull))]) {
      expect(text).toContain("No space left on device");
      expect(text).not.toContain("SECRET-PARAM");
      expect(text.length).toBeLessThan(5_000);
    }
    expect(errorSummary(queryError(diskFull))).toBe(
      'Error: could not extend file "base/5/16482": No space left on device',
    );
  });

  it("show a thrown value that is not an Error by its name and fields, never [object Object]", () => {
    class ErrnoError {
      name = "ErrnoError";
      constructor(readonly errno: number) {}
    }
    expect(describeUnexpected(new ErrnoError(51))).toBe('ErrnoError {"errno":51,"name":"ErrnoError"}');
    expect(describeUnexpected({ a: 1 })).toBe('Object {"a":1}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeUnexpected(cyclic)).not.toContain("[object Object]");
    expect(describeUnexpected({ big: "y".repeat(10_000) }).length).toBeLessThan(600);
    expect(describeUnexpected(undefined)).toBe("undefined");
  });
});
