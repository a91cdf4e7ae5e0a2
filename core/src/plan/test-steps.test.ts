// biome-ignore lint/style/noRestrictedImports: tests read the plan fixtures from disk.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePlanFile } from "./parse-plan.js";
import { classifyTestStep, isRunnableStep, type TestStepKind, testStepWarnings } from "./test-steps.js";

const PLANS = new URL("../../../test/fixtures/plans/", import.meta.url);
const fixture = (name: string) => parsePlanFile(readFileSync(new URL(name, PLANS), "utf8"), name);

// Steps as real plans write them (most from test/fixtures/plans and the plans users sent), by kind.
const CASES: Record<TestStepKind, string[]> = {
  command: [
    "npm test",
    "npm test -- checkout",
    "pytest -q tests/x.py",
    "pytest -q && python3 -m ruff check whilly/ tests/ && python3 -m ruff format --check whilly/ tests/",
    "curl -s localhost:8080/health | grep ok",
    "cd web && npm run build",
    "./scripts/check.sh",
    "python3 -c 'print(1)'",
    "make lint",
    "test -f README.md",
    "test -s DEMO-HELLO.md",
    "test ! -f whilly/cli_legacy.py && test ! -f whilly/tmux_runner.py",
    "test $(wc -l < README_WORKSHOP.md) -le 30",
    "test \"$(grep -c '^-' NOTES.md)\" = '3'",
    "grep -q foo bar.txt",
    "grep -q 'whilly init' README.md",
    "grep -q 'pip install whilly-orchestrator' README_WORKSHOP.md",
    "grep -c '## \\[4.1.0\\]' CHANGELOG.md  # expected: 1",
    "head -1 HELLO.md | grep -q '^Hello from Whilly!$'",
    "VAR=1 npm test",
    "ls",
    "lint-imports",
    "mypy --strict whilly/core/",
    "yamllint .github/workflows/ci.yml",
    "coverage report --include='whilly/cli/init.py' --fail-under=80",
    "bash scripts/whilly-share.sh  # на primary",
    "bash -c 'rm -f /tmp/_events.jsonl; ./scripts/show_costs.sh /tmp/_events.jsonl' | grep -q '0'",
    "kill -INT %1  # на primary — оба процесса умерли",
    "ps aux | grep -E 'uvicorn|ssh.*localhost.run|cloudflared'  # zero results",
    'psql -c "SELECT id, status FROM tasks WHERE claimed_by IS NOT NULL"  # видеть claim от secondary worker',
    "Rscript tests/run.R",
    "Xvfb :99 &",
    "/usr/bin/env true",
    "[ -f package.json ]",
    "! grep -q TODO src/main.ts",
    "(cd web && npm test)",
    "go test ./...",
    "cargo test --workspace",
    "echo ok",
    "exit 0",
    "grep TODO notes.",
    "echo all done.",
    "PYTHONPATH=. pytest -q",
    "Get-ChildItem -Recurse",
    "npm run test:unit",
    "for f in *.md; do test -s $f; done",
    "bash scripts/whilly-share.sh",
    "node cli/bin/check.js",
  ],
  manual: [
    "manual: open the dashboard and check the graph",
    "Manual: Проверить что страница открывается",
    "  MANUAL : on machine B, run the worker",
  ],
  prose: [
    "Проверить что smoke job появляется в gh pr checks list",
    "Извлечь URL + token из output, скопировать на secondary host",
    "На machine B (manual): следовать docs/Whilly-Workstation-Bootstrap.md от 0 до зелёного worker --once",
    "На primary: whilly plan show ... — статусы не сломаны",
    "На secondary: whilly-worker --connect <url> --token <X> --plan <plan-id> --once",
    "On machine B (manual) follow the bootstrap guide",
    "on machine B (manual): run the worker",
    "Verify that the page loads.",
    "Open the browser and check the header shows the plan",
    "Check: the summary lists three tasks",
    "On primary: the statuses are intact",
    "Run `npm test` and confirm it passes",
    "Make sure the server starts",
    "1. Open the app",
    "2) Log in as admin",
    "the page shows a green badge.",
    "Ensure, after a restart, the worker reconnects",
    "ログイン画面が表示される",
  ],
  whilly: [
    "whilly --help",
    "whilly init --help | grep -E '\\-\\-slug|\\-\\-interactive'",
    "whilly plan --help && whilly run --help",
    "whilly plan reset test-plan --keep-tasks --yes",
    "whilly plan show 'Whilly v4.1 — Out-of-scope items from v4.0 release' (matches primary)",
    "whilly worker local --once  # claim + complete без primary-side errors",
    "whilly-worker --connect http://x --token t --once",
    "npx whilly run --plan p",
    "WHILLY_DATABASE_URL=postgres://x whilly run",
    "cd demo && whilly run",
    "npm run build; whilly plan show demo",
    "./node_modules/.bin/whilly plan list",
    "env WHILLY_DEBUG=1 whilly-worker --once",
  ],
};

const TABLE = Object.entries(CASES).flatMap(([kind, steps]) => steps.map((step) => [step, kind] as const));

describe("classifyTestStep", () => {
  it.each(TABLE)("%s → %s", (step, kind) => {
    expect(classifyTestStep(step)).toBe(kind);
    expect(isRunnableStep(step)).toBe(kind === "command");
  });
});

describe("the fixture plans' test steps", () => {
  it("are commands except the prose and whilly calls of the v4-1 plan and the checks plan", () => {
    const setApart = readdirSync(PLANS)
      .filter((name) => name.endsWith(".json"))
      .flatMap((name) =>
        fixture(name).tasks.flatMap((task) =>
          task.testSteps
            .map((step) => [task.id, classifyTestStep(step)] as const)
            .filter(([, kind]) => kind !== "command")
            .map(([id, kind]) => `${name} ${id} ${kind}`),
        ),
      );
    expect(new Set(setApart)).toEqual(
      new Set([
        "checks.tasks.json CHK-1 manual",
        "checks.tasks.json CHK-2 prose",
        "checks.tasks.json CHK-3 whilly",
        "checks.tasks.json CHK-3 prose",
        "v4-1.tasks.json TASK-103 whilly",
        "v4-1.tasks.json TASK-104a-3 whilly",
        "v4-1.tasks.json TASK-105-1 whilly",
        "v4-1.tasks.json TASK-107 prose",
        "v4-1.tasks.json TASK-110 prose",
        "v4-1.tasks.json TASK-110 whilly",
        "v4-1.tasks.json TASK-111 prose",
      ]),
    );
  });
});

describe("testStepWarnings", () => {
  it("names, in one sentence, the tasks with prose steps and those calling whilly, and the fix", () => {
    expect(testStepWarnings(fixture("v4-1.tasks.json").tasks)).toEqual([
      "'test_steps' that read as instructions for a person in tasks 'TASK-107', 'TASK-110', 'TASK-111' and call whilly itself in tasks 'TASK-103', 'TASK-104a-3', 'TASK-105-1', 'TASK-110' are not run by whilly's checks and count as manual; prefix manual steps with 'manual:' and write checks as shell commands",
    ]);
  });

  it("says task for one task, and nothing when every step is a command or written manual:", () => {
    const task = (id: string, testSteps: string[]) => ({ id, testSteps });
    expect(testStepWarnings([task("A", ["npm test"]), task("B", ["Проверить что всё работает"])])).toEqual([
      "'test_steps' that read as instructions for a person in task 'B' are not run by whilly's checks and count as manual; prefix manual steps with 'manual:' and write checks as shell commands",
    ]);
    expect(
      testStepWarnings([task("A", ["npm test", "manual: Проверить что всё работает"]), task("B", [])]),
    ).toEqual([]);
    expect(testStepWarnings(fixture("demo.tasks.json").tasks)).toEqual([]);
  });

  it("names at most ten tasks of a kind, then says how many more", () => {
    const tasks = Array.from({ length: 12 }, (_, i) => ({ id: `T-${i + 1}`, testSteps: ["whilly run"] }));
    expect(testStepWarnings(tasks)[0]).toContain(
      "call whilly itself in tasks 'T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6', 'T-7', 'T-8', 'T-9', 'T-10' and 2 more are not run",
    );
  });
});
