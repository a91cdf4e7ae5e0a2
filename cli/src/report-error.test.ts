import { describe, expect, it } from "vitest";
import { reportError } from "./report-error.js";

function capture() {
  let text = "";
  const write = (chunk: string): boolean => {
    text += chunk;
    return true;
  };
  const io = { err: { write }, env: { NO_COLOR: "1" } };
  return { io, text: () => text };
}

// Shaped as they reach the CLI: PGlite's ErrnoError (a plain object) and drizzle's failed query.
describe("reportError", () => {
  it("words PGlite's ErrnoError as a system error, never [object Object]", () => {
    const { io, text } = capture();
    expect(reportError(io as never, { name: "ErrnoError", errno: 51 })).toBe(1);
    expect(text()).toBe(
      "error: cannot use the embedded database's files: no space left on the device (ENOSPC)\n" +
        "hint: free some space on that file system (df -h shows which one is full), then run again\n",
    );
  });

  it("shows a thrown non-Error by its fields", () => {
    const { io, text } = capture();
    expect(reportError(io as never, { reason: "odd" })).toBe(1);
    expect(text()).toContain('unexpected failure (a bug in whilly): Object {"reason":"odd"}');
    expect(text()).not.toContain("[object Object]");
  });

  it("shows a failed query's cause, never its SQL parameters", () => {
    const { io, text } = capture();
    const cause = new RangeError("the real reason");
    const error = new Error(`Failed query: select $1\nparams: SECRET${"x".repeat(100_000)}`, { cause });
    expect(reportError(io as never, error)).toBe(1);
    expect(text()).toContain("RangeError: the real reason");
    expect(text()).not.toContain("SECRET");
    expect(text().length).toBeLessThan(5_000);
  });
});
