import { describe, expect, it } from "vitest";
import { ConfigurationError } from "./errors.js";
import { settingsError } from "./settings-problems.js";

describe("settingsError", () => {
  it("names every problem, and gives each distinct hint once, in order, then the extra hint", () => {
    const error = settingsError(
      [
        { message: "A is bad", hint: "fix A" },
        { message: "B is bad", hint: "make a secret" },
        { message: "C is bad", hint: "make a secret" },
      ],
      { prefix: "bad environment: ", extraHint: "see the docs" },
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.message).toBe("bad environment: A is bad; B is bad; C is bad");
    expect(error?.hint).toBe("fix A; make a secret; see the docs");
  });

  it("is undefined without problems", () => {
    expect(settingsError([], { extraHint: "x" })).toBeUndefined();
  });
});
