import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeAnthropic, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, makeStoreTemplate, removeAll, WHILLY_BIN, waitFor, withStore } from "../support/cli.js";
import {
  agentRequestsSince,
  cycleThenValid,
  expectOnlyInFence,
  expectValidPlanStored,
  INJECTED,
  initEnv,
  MODEL_PRD,
  storedPlan,
} from "./init-support.js";

// The wizard of `whilly init` in a real terminal: the built CLI runs in a pseudo-terminal made by
// util-linux `script`, so its stdin is a TTY and it asks its questions there, one at a time; the test
// answers each once it is shown. The REAL Claude Code CLI answers from the scripted fake model.

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({ script: cycleThenValid() }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

/** `whilly <argv>` in a pseudo-terminal; the terminal's output (stdout and stderr) as it comes. */
function inTerminal(argv: readonly string[], options: { cwd: string; env: Record<string, string> }) {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, WHILLY_BIN, ...argv].map(quote).join(" ");
  const child: ChildProcess = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  const exit = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  return {
    screen: () => screen,
    type: (text: string) => child.stdin?.write(text),
    /** Waits until the screen shows `text` (after `from` characters). */
    shows: (text: string, from = 0) =>
      waitFor(`the terminal to show ${JSON.stringify(text)}`, () =>
        screen.indexOf(text, from) >= 0 ? screen.indexOf(text, from) : undefined,
      ),
    exit,
  };
}

describe("whilly init in a terminal (the wizard)", () => {
  it("asks the five questions one at a time, writes the PRD from the answers, and stores the plan", async () => {
    fake.setScript(cycleThenValid());
    const repo = makeRepo(template);
    const from = fake.requests().length;
    const terminal = inTerminal(["init", "a todo app", "--slug", "wizard"], {
      cwd: repo,
      env: initEnv(fake).env,
    });
    const answers = ["Lists get lost", INJECTED, "", "Web only", "TypeScript on Node"];
    let at = 0;
    for (const [i, answer] of answers.entries()) {
      at = await terminal.shows(`(${i + 1}/5) `, at);
      // One question at a time: the next is not shown before this one is answered.
      expect(terminal.screen().includes(`(${i + 2}/5) `)).toBe(false);
      await terminal.shows("> ", at);
      terminal.type(`${answer}\n`);
    }
    expect(await terminal.exit, terminal.screen()).toBe(0);
    expect(terminal.screen()).toContain("✓ Plan 'wizard' imported (3 tasks)");
    expect(readFileSync(join(repo, "docs", "PRD-wizard.md"), "utf8")).toBe(`${MODEL_PRD}\n`);
    expectValidPlanStored((await storedPlan(repo, "wizard")).tasks);

    const [prd] = agentRequestsSince(fake, from).map((r) => r.prompt ?? "");
    expectOnlyInFence(prd ?? "", "a todo app", "idea");
    expectOnlyInFence(prd ?? "", "Lists get lost", "problem");
    expectOnlyInFence(prd ?? "", INJECTED, "users");
    expect(prd).toContain("<UNTRUSTED kind=success_criteria>\n(no answer)\n</UNTRUSTED>");
    expectOnlyInFence(prd ?? "", "TypeScript on Node", "technical_needs");
  }, 120_000);

  it("Ctrl-C at a question: exit 130, nothing asked of the model, nothing written or stored", async () => {
    const repo = makeRepo(template);
    const from = fake.requests().length;
    const terminal = inTerminal(["init", "a todo app", "--slug", "stopped"], {
      cwd: repo,
      env: initEnv(fake).env,
    });
    await terminal.shows("(1/5) ");
    terminal.type("\u0003");
    expect(await terminal.exit, terminal.screen()).toBe(130);
    expect(terminal.screen()).toMatch(/interrupted; nothing was stored/);
    expect(fake.requests().length).toBe(from);
    expect(existsSync(join(repo, "docs"))).toBe(false);
    expect(await withStore(repo, (store) => store.getPlan("stopped"))).toBeUndefined();
  }, 60_000);
});
