import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeAgentEnv,
  hasAnsi,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runBin,
  runCli,
  scratchDir,
} from "../../test/support/cli.js";

// Text from plan files and agents reaches people through plan list, plan show, run's progress and its
// summary: a terminal must never act on a control character in it. --json keeps the exact text.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

// Sets the window title, clears the screen, fakes a line with CR, reorders text, and a C1 CSI.
const NAME = "Evil\u001b]0;pwned\u0007\u001b[2J\rname\nFAKE\u202e \u009b31m";
const FAILURE = "boom \u001b[31mred\u001b[0m\r[1/1] ✓ T-1 DONE\nnext line";

// Every control character but line feed; with colour on, ESC only as the start of an SGR colour.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is the point.
const SGR = /\u001b\[[0-9;]*m/g;

function setup() {
  const repo = makeRepo(template);
  const plan = {
    project: NAME,
    plan_id: "evil",
    tasks: [
      {
        id: "T-1",
        status: "pending",
        priority: "high",
        description: "A task whose agent fails with a hostile message.",
        acceptance_criteria: ["done"],
        // No check whilly runs: the agent's (hostile) failure decides, on its one attempt.
        test_steps: ["manual: look at it"],
      },
    ],
    max_attempts: 1,
  };
  writeFileSync(join(repo, "tasks.json"), JSON.stringify(plan));
  const log = join(scratchDir("whilly-agent-"), "agent.log");
  const env = fakeAgentEnv({ script: { "T-1": { outcome: "fail", message: FAILURE } }, log });
  return { repo, env };
}

describe("untrusted text on a terminal", () => {
  it("is shown escaped by plan list, plan show and run, and kept exact in --json", async () => {
    const { repo, env } = setup();
    const run = await runCli(["run", "tasks.json"], { cwd: repo, env });
    expect(run.code).toBe(1);
    for (const text of [run.out, run.err]) expect(text).not.toMatch(RAW_CONTROL);
    // The agent's reply (its first line) under the progress line, and in the summary's note.
    const shown = "the agent reported an error: boom \\u001b[31mred\\u001b[0m\\r[1/1] ✓ T-1 DONE";
    expect(run.err).toContain(`\n      ${shown}\n`);
    expect(run.out).toContain(`  is_error: ${shown}\n`);

    const list = await runBin(["plan", "list"], { cwd: repo, env });
    expect(list.code).toBe(0);
    expect(list.out).not.toMatch(RAW_CONTROL);
    const escapedName = "Evil\\u001b]0;pwned\\u0007\\u001b[2J\\rname\\nFAKE\\u202e \\u009b31m";
    expect(list.out).toContain(`evil  ${escapedName}  1`);

    const show = await runBin(["plan", "show", "evil"], { cwd: repo, env });
    expect(show.out).not.toMatch(RAW_CONTROL);
    expect(show.out).toContain(`Plan: evil — ${escapedName}\n`);

    const json = await runBin(["plan", "list", "--json"], { cwd: repo, env });
    expect(JSON.parse(json.out)).toEqual([expect.objectContaining({ id: "evil", name: NAME })]);
    const runJson = await runCli(["run", "--plan", "evil", "--json"], { cwd: repo, env });
    expect(JSON.parse(runJson.out).tasks[0].note).toBe(
      `is_error: the agent reported an error: ${FAILURE.split("\n")[0]}`,
    );
  });

  it("keeps whilly's own colours on a terminal, and only those", async () => {
    const { repo, env } = setup();
    await runCli(["plan", "import", "tasks.json"], { cwd: repo, env });
    const show = await runCli(["plan", "show", "evil"], { cwd: repo, env, tty: true });
    expect(hasAnsi(show.out)).toBe(true);
    expect(show.out.replace(SGR, "")).not.toMatch(RAW_CONTROL);
    expect(show.out).not.toContain("\u001b[31m");
    expect(show.out).not.toContain("\u001b[2J");
  });
});
