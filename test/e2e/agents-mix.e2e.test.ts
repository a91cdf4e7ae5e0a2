import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic } from "@whilly/fake-anthropic";
import { fakeClaudeEnv } from "@whilly/fake-anthropic";
import { type FakeGemini, fakeGeminiEnv, startFakeGemini } from "@whilly/fake-gemini";
import { type FakeOpenAI, fakeCodexEnv, startFakeOpenAI } from "@whilly/fake-openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, ROOT, removeAll, runBin, scratchDir } from "../support/cli.js";
import {
  COMPLETE,
  eventsOfTask,
  fileAt,
  recordsOf,
  repoFrom,
  SHORT_WAITS,
  startFake,
  write,
} from "./attempts-support.js";

// One plan, four agents: the REAL Claude Code, Codex and Gemini CLIs, each against its own scripted fake
// model API, and a generic command; every task runs on the agent it names and writes its file with
// that CLI's own tools; whilly's test steps decide DONE.
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

let template: string;
let claude: FakeAnthropic;
let codex: FakeOpenAI;
let gemini: FakeGemini;
beforeAll(async () => {
  [template, claude, codex, gemini] = await Promise.all([
    makeStoreTemplate(),
    startFake({ tasks: { "MIX-CLAUDE": { turns: [write("claude.txt", "from claude\n"), COMPLETE] } } }),
    startFakeOpenAI({
      script: {
        tasks: {
          "MIX-CODEX": {
            turns: [
              {
                call: {
                  name: "exec_command",
                  arguments: { cmd: "printf 'from codex\\n' > codex.txt", workdir: "{{cwd}}" },
                },
              },
              { text: "Wrote codex.txt.\n<promise>COMPLETE</promise>" },
            ],
          },
        },
      },
    }),
    startFakeGemini({
      script: {
        tasks: {
          "MIX-GEMINI": {
            turns: [
              {
                function_calls: [
                  { name: "write_file", args: { file_path: "gemini.txt", content: "from gemini\n" } },
                ],
              },
              { text: "Wrote gemini.txt.\n<promise>COMPLETE</promise>" },
            ],
          },
        },
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([claude?.close(), codex?.close(), gemini?.close()]);
  removeAll();
});

/** A generic agent: writes cmd.txt from the prompt file it is given, and prints its cost last. */
function commandAgent(dir: string): string {
  const path = join(dir, "my-agent.sh");
  writeFileSync(
    path,
    '#!/bin/sh\n# $1: the prompt file, $2: the model\ngrep -c "Task id" "$1" > /dev/null && printf "from cmd %s\\n" "$2" > cmd.txt\necho working\necho \'{"cost_usd": 0.0125}\'\n',
  );
  chmodSync(path, 0o755);
  return path;
}

describe("one plan, four agents", () => {
  it("runs each task on the agent it names, with its files written by that CLI's tools", async () => {
    const repo = repoFrom(template);
    const home = scratchDir("whilly-agents-home-");
    const agentCmd = commandAgent(home);
    const task = (id: string, file: string, fields: Record<string, unknown>) => ({
      id,
      status: "pending",
      priority: "medium",
      description: `Write ${file}.`,
      dependencies: [],
      key_files: [file],
      acceptance_criteria: [`${file} exists`],
      test_steps: [`test -s ${file}`],
      ...fields,
    });
    writeFileSync(
      join(repo, "tasks.json"),
      JSON.stringify({
        project: "Mix",
        plan_id: "mix",
        agent: "claude",
        model: "claude-sonnet-4-6",
        tasks: [
          task("MIX-CLAUDE", "claude.txt", {}),
          task("MIX-CODEX", "codex.txt", { agent: "codex", model: "gpt-5-codex" }),
          task("MIX-GEMINI", "gemini.txt", { agent: "gemini" }),
          task("MIX-CMD", "cmd.txt", { agent: "cmd", model: "tiny-1" }),
        ],
      }),
    );
    const env: Record<string, string> = {
      ...fakeClaudeEnv({ baseUrl: claude.url, home }),
      ...fakeCodexEnv({ baseUrl: codex.url, home }),
      ...fakeGeminiEnv({ baseUrl: gemini.url, home }),
      CLAUDE_BIN: bin("claude"),
      CODEX_BIN: bin("codex"),
      GEMINI_BIN: bin("gemini"),
      ...SHORT_WAITS,
    };
    const result = await runBin(
      [
        "run",
        "tasks.json",
        "--task-timeout",
        "90s",
        "--concurrency",
        "4",
        "--agent-cmd",
        `${agentCmd} {prompt_file} {model}`,
      ],
      { cwd: repo, env },
    );
    expect(result.code, result.out + result.err).toBe(0);
    const { tasks, events } = await recordsOf(repo, "mix");
    expect(tasks.map((t) => [t.id, t.status])).toEqual(
      expect.arrayContaining([
        ["MIX-CLAUDE", "DONE"],
        ["MIX-CODEX", "DONE"],
        ["MIX-GEMINI", "DONE"],
        ["MIX-CMD", "DONE"],
      ]),
    );
    const ran = (id: string) => eventsOfTask(events, id, "COMPLETE")[0]?.detail;
    expect(ran("MIX-CLAUDE")).toMatchObject({ agent: "claude", model: "claude-sonnet-4-6" });
    expect(ran("MIX-CODEX")).toMatchObject({ agent: "codex", model: "gpt-5-codex" });
    expect(ran("MIX-GEMINI")).toMatchObject({ agent: "gemini" });
    // The plan's Claude model never reaches Gemini: it runs its own default.
    expect(ran("MIX-GEMINI")?.model).not.toBe("claude-sonnet-4-6");
    expect(ran("MIX-CMD")).toMatchObject({ agent: "cmd", model: "tiny-1", cost_usd: "0.012500" });
    for (const id of ["MIX-CLAUDE", "MIX-CODEX", "MIX-GEMINI"]) {
      expect(Number(ran(id)?.cost_usd ?? 0), id).toBeGreaterThan(0);
      const tokens = ran(id)?.tokens as { input?: number; output?: number } | undefined;
      expect(tokens?.input ?? 0, id).toBeGreaterThan(0);
      expect(tokens?.output ?? 0, id).toBeGreaterThan(0);
    }
    // Each CLI's requests went to its own fake.
    expect(codex.requests().some((r) => r.taskId === "MIX-CODEX")).toBe(true);
    expect(gemini.requests().some((r) => r.taskId === "MIX-GEMINI")).toBe(true);
    const work = (id: string, file: string) => {
      const branch = tasks.find((t) => t.id === id)?.work?.branch ?? "";
      return fileAt(repo, branch, file);
    };
    expect(work("MIX-CODEX", "codex.txt")).toBe("from codex\n");
    expect(work("MIX-GEMINI", "gemini.txt")).toBe("from gemini\n");
    expect(work("MIX-CMD", "cmd.txt")).toBe("from cmd tiny-1\n");
    expect(work("MIX-CLAUDE", "claude.txt")).toBe("from claude\n");
  }, 180_000);
});
