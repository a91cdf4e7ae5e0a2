import { describe, expect, it } from "vitest";
import { parseRoute, parseSignInLink, taskHref } from "./router.js";

describe("parseRoute", () => {
  it("reads each page, decoding ids", () => {
    expect(parseRoute("")).toEqual({ page: "plans" });
    expect(parseRoute("#/workers")).toEqual({ page: "workers" });
    expect(parseRoute("#/plans/big%20plan")).toEqual({ page: "plan", planId: "big plan" });
    expect(parseRoute(taskHref("a/b", "T 1"))).toEqual({ page: "task", planId: "a/b", taskId: "T 1" });
  });

  it("falls back to the plans page for anything unknown or malformed", () => {
    expect(parseRoute("#/nope")).toEqual({ page: "plans" });
    expect(parseRoute("#/plans/%E0%A4%A")).toEqual({ page: "plan", planId: "%E0%A4%A" });
  });
});

describe("parseSignInLink", () => {
  it("reads the code and opens the run's plan, or the plans page without one", () => {
    expect(parseSignInLink("#signin=abc-_1&plan=my%20plan")).toEqual({
      code: "abc-_1",
      next: "#/plans/my%20plan",
    });
    expect(parseSignInLink("#signin=abc")).toEqual({ code: "abc", next: "#/" });
    expect(parseSignInLink("#/plans/x")).toBeUndefined();
    expect(parseSignInLink("#signin=")).toBeUndefined();
  });
});
