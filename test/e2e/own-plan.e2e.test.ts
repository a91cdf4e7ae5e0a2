import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  ROOT,
  removeAll,
  runBin,
  scratchDir,
} from "../support/cli.js";
import { commitFiles } from "./attempts-support.js";

// A newcomer's own plan, offline, as docs/fake-model.md tells it: the scripted model with
// examples/any-plan.script.json (whose default story answers every task id) and `whilly run` on a plan
// no script names, with the REAL Claude Code CLI.
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");
const PLAN = "instructions-in-the-wild.tasks.json";

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({ scriptFile: join(ROOT, "examples", "any-plan.script.json") }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly run on any plan with the example script's default story", () => {
  it("runs every task to DONE, each writing its file through Claude Code's own tool", async () => {
    const repo = makeRepo(template);
    copyFileSync(join(FIXTURES, "plans", PLAN), join(repo, PLAN));
    // The plan's test steps are `npm test -- ...`, which whilly runs: a project whose tests pass.
    commitFiles(repo, {
      "package.json": '{ "name": "shop", "private": true, "scripts": { "test": "node -e 0" } }\n',
    });
    const env = {
      ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-") }),
      CLAUDE_BIN: CLAUDE,
      WHILLY_MODEL: "claude-sonnet-4-6",
    };
    const result = await runBin(["run", PLAN, "--task-timeout", "2m"], { cwd: repo, env });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/plan 'shop-checkout': DONE=2/);
    for (const id of ["CHK-001", "CHK-002"]) {
      expect(readFileSync(join(repo, `scripted-${id}.md`), "utf8")).toContain(`Task ${id} was handled`);
    }
    const played = fake.requests().filter((r) => r.kind === "agent");
    expect(new Set(played.map((r) => r.script))).toEqual(new Set(["default"]));
    expect(new Set(played.map((r) => r.taskId))).toEqual(new Set(["CHK-001", "CHK-002"]));
  }, 240_000);
});
