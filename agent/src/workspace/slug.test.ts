import { describe, expect, it } from "vitest";
import { slugOf } from "./slug.js";

describe("slugOf", () => {
  it.each([
    ["auth-1", "auth-1"],
    ["v1.2_x", "v1.2_x"],
  ])("keeps %s as it is", (id, slug) => {
    expect(slugOf(id)).toBe(slug);
  });

  it.each(["Feat/A", "a b", "..x", "_integration", "x.lock", "end.", "Ünïcode", "", "/"])(
    "makes %j a branch component git accepts, with a hash",
    (id) => {
      const slug = slugOf(id);
      expect(slug).toMatch(/^[a-z0-9][a-z0-9._-]*-[0-9a-f]{6}$/);
      expect(slug).not.toMatch(/\.\.|\.lock$|\.$/);
    },
  );

  it("never gives two ids the same slug", () => {
    expect(slugOf("A")).not.toBe(slugOf("a"));
    expect(slugOf("a/b")).not.toBe(slugOf("a-b"));
  });
});
