import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/cli.js";

// action.yml, its entry point and the example workflow agree: every input the entry point reads is
// declared, every input the example passes exists, and the example asks for no more permission than needed.

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The keys indented by two spaces under a top-level `section:` of a YAML file (no YAML parser needed). */
function keysUnder(text: string, section: string): string[] {
  const start = text.indexOf(`\n${section}:\n`);
  const rest = text.slice(start + section.length + 3);
  const end = rest.search(/\n[^\s#]/);
  return [...(end < 0 ? rest : rest.slice(0, end)).matchAll(/^ {2}([a-z][a-z-]*):/gm)].map((m) => m[1] ?? "");
}

describe("action.yml", () => {
  const action = read("action.yml");
  const inputs = keysUnder(action, "inputs");

  it("runs the entry point on node20, declares the outputs it sets", () => {
    expect(action).toMatch(/\nruns:\n {2}using: node20\n {2}main: action\/main\.mjs\n/);
    expect(keysUnder(action, "outputs")).toEqual(["plan-id", "created", "tasks-count"]);
  });

  it("declares every input the entry point reads", () => {
    const code = read("action/main.mjs") + read("action/github.mjs");
    // `input(env, "x")`, and the inputs passed on as flags: `["budget-usd", "--budget"]`.
    const used = [...code.matchAll(/(?:(?:input|booleanInput)\(env, |\[)"([a-z-]+)"(?:\)|, "--)/g)].map(
      (m) => m[1],
    );
    expect(new Set(used)).toEqual(new Set(inputs));
  });

  it("the example workflow passes only declared inputs and asks for the least permissions", () => {
    const example = read("docs/examples/whilly-intake.yml");
    const withKeys = [...example.matchAll(/^ {10}([a-z-]+):/gm)].map((m) => m[1] ?? "");
    expect(withKeys.length).toBeGreaterThan(0);
    for (const key of withKeys) expect(inputs).toContain(key);
    expect(keysUnder(example, "permissions")).toEqual(["contents", "issues", "id-token"]);
    expect(example).toMatch(/contents: read\n {2}issues: write\n {2}id-token: write\n/);
  });
});
