import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzePlanTriz, parsePlanFile, type TrizTask } from "@whilly/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  withStore,
} from "../../../../test/support/cli.js";

// `whilly plan triz` in-process on the embedded store, with one fixture plan per finding kind.
const fixture = (name: string) => join(FIXTURES, "triz", `${name}.tasks.json`);
const STORED = ["clean", "weak-task", "duplicate-work", "resource-conflict", "over-engineering"];

let repo: string;
beforeAll(async () => {
  repo = makeRepo(await makeStoreTemplate());
  // One store opening for every import: each whilly command would open it again.
  await withStore(repo, async (store) => {
    for (const name of STORED) {
      const path = fixture(name);
      await store.importPlan(parsePlanFile(readFileSync(path, "utf8"), path));
    }
  });
});
afterAll(removeAll);

const triz = (...argv: string[]) => runCli(["plan", "triz", ...argv], { cwd: repo });
const categories = (out: string) =>
  (JSON.parse(out) as { findings: { category: string }[] }).findings.map((f) => f.category);

describe("whilly plan triz", () => {
  it("approves the clean plan: the whole report as JSON, exit 0 also under --strict", async () => {
    const result = await triz("triz-clean", "--json", "--strict");
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(JSON.parse(result.out)).toEqual({
      plan_id: "triz-clean",
      task_count: 3,
      verdict: "approve",
      ideality_score: 1,
      findings: [],
      mergeable_groups: [],
      removable_tasks: [],
      summary: "No structural problems found.",
    });
  });

  it("finds each kind the store can hold; --strict exits 1 unless approved", async () => {
    const expected: Record<string, [string[], string]> = {
      "weak-task": [["weak_task_definition"], "revise"],
      "duplicate-work": [["duplicate_work"], "revise"],
      "resource-conflict": [["resource_conflict"], "revise"],
      // A task with neither criteria nor test steps also fails the decision gate.
      "over-engineering": [["weak_task_definition", "over_engineering_risk"], "revise"],
    };
    const reports: Record<string, { verdict: string; mergeable_groups: string[][] }> = {};
    for (const [name, [kinds, verdict]] of Object.entries(expected)) {
      // --strict still prints the report; it only changes the exit code.
      const strict = await triz(`triz-${name}`, "--json", "--strict");
      expect(strict.code, name).toBe(1);
      expect(categories(strict.out), name).toEqual(kinds);
      reports[name] = JSON.parse(strict.out);
      expect(reports[name]?.verdict, name).toBe(verdict);
    }
    expect((await triz("triz-weak-task", "--json")).code).toBe(0);
    expect(reports["duplicate-work"]).toMatchObject({
      mergeable_groups: [["DUP-1", "DUP-2"]],
      removable_tasks: ["DUP-2"],
      ideality_score: 0.89,
    });
  });

  it("prints a readable report without colour unless on a terminal, and honours NO_COLOR", async () => {
    const result = await triz("triz-resource-conflict");
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        "TRIZ preflight of plan 'triz-resource-conflict' (3 tasks)",
        "verdict: REVISE   ideality: 0.89",
        "Runnable, but worth tightening (1 medium).",
        "",
        "MEDIUM (1)",
        "  resource_conflict · tasks RES-1, RES-2 · principle 5 (merging)",
        "    2 tasks share key file 'src/config.ts'",
        "    recommendation: order them with explicit dependencies, or combine them into one task that owns the file",
        "",
        "mergeable groups: RES-1 + RES-2",
        "",
      ].join("\n"),
    );
    const tty = await runCli(["plan", "triz", "triz-weak-task"], { cwd: repo, tty: true });
    expect(tty.out).toContain("\u001b[");
    const noColor = await runCli(["plan", "triz", "triz-weak-task"], {
      cwd: repo,
      tty: true,
      env: { NO_COLOR: "1", WHILLY_CACHE_DIR: process.env.WHILLY_CACHE_DIR },
    });
    expect(noColor.out).not.toContain("\u001b[");
    expect(noColor.out).toContain("HIGH (1)\n  weak_task_definition · task WEAK-2");
  });

  it("exits 2 with error and hint when the plan or the store is missing", async () => {
    const missing = await triz("no-such-plan");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error: plan 'no-such-plan' not found\nhint: .*whilly plan list/);
    const empty = await runCli(["plan", "triz", "triz-clean"], { cwd: makeRepo() });
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/^error: .*\nhint: /);
  });

  it("finds the cycle and the unknown dependency the store refuses at import", async () => {
    const refused = await triz("triz-cycle");
    expect(refused.code).toBe(2);
    for (const [name, kind] of [
      ["cycle", "dependency_contradiction"],
      ["missing-dependency", "missing_dependency_resource"],
    ] as const) {
      const imported = await runCli(["plan", "import", fixture(name)], { cwd: repo });
      expect(imported.code, name).toBe(1);
      const report = analyzePlanTriz(rawPlan(fixture(name)));
      expect(
        report.findings.map((f) => f.category),
        name,
      ).toEqual([kind]);
    }
  });
});

/** A plan file read as it is, without the checks import makes (they refuse cycles and unknown ids). */
function rawPlan(path: string): { id: string; tasks: TrizTask[] } {
  const doc = JSON.parse(readFileSync(path, "utf8")) as {
    plan_id: string;
    tasks: {
      id: string;
      description: string;
      dependencies: string[];
      key_files: string[];
      acceptance_criteria: string[];
      test_steps: string[];
    }[];
  };
  return {
    id: doc.plan_id,
    tasks: doc.tasks.map((t) => ({
      id: t.id,
      description: t.description,
      dependencies: t.dependencies,
      keyFiles: t.key_files,
      acceptanceCriteria: t.acceptance_criteria,
      testSteps: t.test_steps,
    })),
  };
}
