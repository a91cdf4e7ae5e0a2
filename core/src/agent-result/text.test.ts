import { describe, expect, it } from "vitest";
import { redactSecrets as redact } from "../redact/redact.js";
import { storableText, utf8Tail } from "./text.js";

describe("utf8Tail", () => {
  it("keeps short text whole", () => {
    expect(utf8Tail("hello", 4096)).toBe("hello");
  });

  it("counts bytes, not characters", () => {
    expect(utf8Tail("abcжж", 4)).toBe("жж");
    expect(utf8Tail("abcжж", 5)).toBe("cжж");
  });

  it("never splits a surrogate pair", () => {
    expect(utf8Tail("a🙂", 3)).toBe("");
    expect(utf8Tail("a🙂", 4)).toBe("🙂");
  });
});

describe("storableText and redact", () => {
  it("replaces NUL and lone surrogates, keeps pairs", () => {
    expect(storableText("a\u0000b\udc00c🙂")).toBe("a\ufffdb\ufffdc🙂");
  });

  it("hides Anthropic keys and listed secrets, ignores very short secrets", () => {
    expect(redact("key sk-ant-abc123XYZ_-9 end", ["abc"])).toBe("key sk-ant-[redacted] end");
    expect(redact("pw=swordfish!", ["swordfish!"])).toBe("pw=[redacted]");
  });
});
