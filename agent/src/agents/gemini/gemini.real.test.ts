import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentOutcome, classifyAgentRun } from "@whilly/core";
import { type FakeGemini, type FakeGeminiScript, fakeGeminiEnv, startFakeGemini } from "@whilly/fake-gemini";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcessGroup } from "../../runner/process-group.js";
import type { AgentInvocation } from "../types.js";
import { createGeminiAdapter } from "./index.js";

// The real Gemini CLI (devDependency, 0.61.0) run through the adapter's argv and env against the fake.
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const adapter = createGeminiAdapter({ GEMINI_BIN: join(root, "node_modules/.bin/gemini") });

const SCRIPT: FakeGeminiScript = {
  tasks: {
    "T-HELLO": {
      turns: [
        {
          text: "Creating the file.",
          function_calls: [{ name: "write_file", args: { file_path: "hello.txt", content: "hi\n" } }],
          usage: { prompt_tokens: 8000, candidates_tokens: 25, cached_tokens: 0, thoughts_tokens: 10 },
        },
        {
          text: "hello.txt holds hi.\n<promise>COMPLETE</promise>",
          usage: { prompt_tokens: 8100, candidates_tokens: 15, cached_tokens: 6000, thoughts_tokens: 0 },
        },
      ],
    },
    "T-MORE": {
      turns: [
        { function_calls: [{ name: "run_shell_command", args: { command: "echo again >> hello.txt" } }] },
        { text: "Appended.\n<promise>COMPLETE</promise>" },
      ],
    },
    "T-QUOTA": {
      turns: [],
      fault: {
        status: 429,
        message: "You exceeded your current quota.",
        quota_id: "GenerateRequestsPerDayPerProjectPerModel",
      },
    },
  },
  default: { turns: [{ text: '{"tasks": [{"id": "T-1", "description": "Say hi"}]}' }] },
};

let fake: FakeGemini;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-real-gemini-"));
  fake = await startFakeGemini({ script: SCRIPT });
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

/** One run of the real CLI as a runner would start it: the adapter's argv and env, its reader fed live. */
async function run(
  project: string,
  home: string,
  invocation: Omit<AgentInvocation, "cwd" | "promptFile" | "model">,
) {
  const full: AgentInvocation = {
    ...invocation,
    cwd: project,
    promptFile: join(work, "prompt.md"),
    model: "gemini-2.5-pro",
  };
  // Folder trust on: `--skip-trust` must keep the approval mode for a worktree the user never trusted.
  const security = { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } };
  const env = adapter.env(fakeGeminiEnv({ baseUrl: fake.url, home, settings: { security } }), full);
  const reader = adapter.stream(() => {});
  const started = performance.now();
  const done = await runProcessGroup({
    argv: adapter.argv(full),
    cwd: project,
    env,
    timeoutMs: 60_000,
    killGraceMs: 1000,
    onOutput: (chunk, stream) => {
      if (stream === "stdout") reader.push(chunk);
    },
  });
  const result = adapter.result(done);
  const outcome: AgentOutcome = classifyAgentRun({
    ...done,
    stdout: result === undefined ? done.stdout : JSON.stringify(result),
    resultRule: invocation.mode === "answer" ? "answer" : "completion-marker",
  });
  return { done, reader, outcome, ms: Math.round(performance.now() - started) };
}

async function dirs(name: string) {
  const project = join(work, name, "project");
  const home = join(work, name, "home");
  await mkdir(project, { recursive: true });
  return { project, home };
}

describe("the Gemini adapter with the real Gemini CLI", () => {
  it("writes hello.txt with the CLI's own tool, succeeds with the marker, records tokens and cost, then resumes", async () => {
    const { project, home } = await dirs("hello");
    const prompt =
      "Task id: T-HELLO\nCreate hello.txt with the text hi, then print <promise>COMPLETE</promise>.";
    const first = await run(project, home, { prompt, taskId: "T-HELLO", mode: "task" });

    expect(first.outcome.message).toBe("the agent completed the task");
    expect(first.outcome).toMatchObject({ ok: true, numTurns: 2 });
    expect(await readFile(join(project, "hello.txt"), "utf8")).toBe("hi\n");
    // 10100 uncached + 6000 cached prompt tokens, 40 answer + 10 thinking; gemini-2.5-pro's bundled prices.
    expect(first.outcome.usage).toEqual({
      inputTokens: 10100,
      outputTokens: 50,
      cacheReadTokens: 6000,
      cacheCreationTokens: 0,
    });
    expect(first.outcome.costMicroUsd).toBe(10100 * 1.25 + 6000 * 0.125 + 50 * 10);
    expect(first.reader.progress).toEqual({ turns: 2, last_tool: "write_file" });
    expect(first.reader.sessionId).toBe(first.outcome.sessionId);
    const offered = fake.requests().find((r) => r.taskId === "T-HELLO")?.tools ?? [];
    expect(offered).toEqual(expect.arrayContaining(["write_file", "replace", "run_shell_command"]));
    expect(fake.requests().flatMap((r) => r.warnings)).toEqual([]);

    // A second attempt continues the session in the same worktree.
    const more = "Task id: T-MORE\nAppend a line, then print <promise>COMPLETE</promise>.";
    const sessionId = first.outcome.sessionId ?? "";
    const second = await run(project, home, {
      prompt: more,
      taskId: "T-MORE",
      mode: "task",
      resumeSessionId: sessionId,
    });
    expect(second.outcome).toMatchObject({ ok: true, sessionId });
    expect(await readFile(join(project, "hello.txt"), "utf8")).toBe("hi\nagain\n");
    const resumed = fake.requests().find((r) => r.taskId === "T-MORE" && r.turn === 0);
    expect(resumed?.prompt).toContain("Task id: T-MORE");
    console.info(`real Gemini CLI: task ${first.ms} ms, resumed ${second.ms} ms`);
  }, 120_000);

  it("reports a quota refusal as a provider limit", async () => {
    const { project, home } = await dirs("quota");
    const { outcome, ms } = await run(project, home, {
      prompt: "Task id: T-QUOTA\nDo it.",
      taskId: "T-QUOTA",
      mode: "task",
    });
    expect(outcome).toMatchObject({ ok: false, reason: "rate_limited" });
    expect(outcome.limited?.message).toMatch(/quota/i);
    console.info(`real Gemini CLI: quota refusal ${ms} ms`);
  }, 60_000);

  it("gives a one-turn answer without write or shell tools", async () => {
    const { project, home } = await dirs("answer");
    const { outcome } = await run(project, home, {
      prompt: "Generate: plan\nWrite the plan.",
      taskId: "",
      mode: "answer",
    });
    expect(outcome).toMatchObject({
      ok: true,
      resultText: '{"tasks": [{"id": "T-1", "description": "Say hi"}]}',
    });
    const offered = fake.requests().find((r) => r.prompt?.includes("Generate: plan"))?.tools ?? [];
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("write_file");
    expect(offered).not.toContain("run_shell_command");
  }, 60_000);
});
