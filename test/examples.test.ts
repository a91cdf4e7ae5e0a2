import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlanFile } from "@whilly/core";
import { describe, expect, it } from "vitest";

// The plans a newcomer meets first (examples/, named by the README) must be readable by them and true:
// in English, naming only files that exist, and the very plans the end-to-end tests run.
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const plans = readdirSync(EXAMPLES).filter((name) => name.endsWith(".tasks.json"));
const CYRILLIC = /\p{Script=Cyrillic}/u;

describe("examples/", () => {
  it("holds the demo plans", () => {
    expect(plans.sort()).toEqual(["demo-parallel.tasks.json", "demo.tasks.json"]);
  });

  it.each(plans)(
    "%s is English, names an existing PRD file, and is the fixture the e2e tests run",
    (name) => {
      const text = readFileSync(join(EXAMPLES, name), "utf8");
      expect(text.split("\n").filter((line) => CYRILLIC.test(line))).toEqual([]);
      const plan = parsePlanFile(text, name);
      const prd = plan.extra.prd_file;
      if (prd !== undefined) expect(existsSync(join(ROOT, String(prd))), `${prd} exists`).toBe(true);
      expect(text).toBe(readFileSync(join(ROOT, "test", "fixtures", "plans", name), "utf8"));
    },
  );
});
