import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AttemptProgress, classifyAgentRun } from "@whilly/core";
import { type FakeOpenAI, type FakeScript, fakeCodexEnv, startFakeOpenAI } from "@whilly/fake-openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_ID_VARIABLE } from "../../runner/end-processes.js";
import { runProcessGroup } from "../../runner/process-group.js";
import type { AgentInvocation } from "../types.js";
import { createCodexAdapter } from "./adapter.js";

// The real Codex CLI (devDependency @openai/codex 0.171.0) against the fake Responses API, run through
// the adapter's argv, env, stream reader and result, and the shared classifier.
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const codexBin = join(root, "node_modules/.bin/codex");
/** Settings of these tests, ms: a run takes 1-3 s here; the limits only stop a hung CLI. */
const RUN_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 2_000;
const STALL_TIMEOUT_MS = 30_000;

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

const SCRIPT: FakeScript = {
  tasks: {
    "HELLO-1": {
      turns: [
        {
          call: { name: "exec_command", arguments: { cmd: "printf hi > hello.txt", workdir: "{{cwd}}" } },
          usage: { input_tokens: 1200, cached_tokens: 300, output_tokens: 40, reasoning_tokens: 12 },
        },
        {
          text: "Created hello.txt.\n<promise>COMPLETE</promise>",
          usage: { input_tokens: 1300, cached_tokens: 1100, output_tokens: 20, reasoning_tokens: 0 },
        },
      ],
    },
    // Codex names the reset from `resets_at` (Unix seconds), in the local time of the machine.
    "LIMIT-1": { turns: [], fault: { status: 429, type: "usage_limit_reached", resets_at: inAnHour() } },
  },
  generate: { plan: { turns: [{ text: '{"tasks": []}' }] } },
};

let fake: FakeOpenAI;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "whilly-real-codex-"));
  fake = await startFakeOpenAI({ script: SCRIPT });
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

/** Runs one invocation the way the runner does: the adapter's argv and env, in its own process group. */
async function run(name: string, prompt: string, mode: AgentInvocation["mode"] = "task") {
  const project = join(work, name, "project");
  await mkdir(project, { recursive: true });
  const base = fakeCodexEnv({ baseUrl: fake.url, home: join(work, name, "home") });
  const adapter = createCodexAdapter({ ...base, CODEX_BIN: codexBin });
  const invocation: AgentInvocation = {
    prompt,
    promptFile: join(work, name, "prompt.md"),
    model: adapter.defaultModel,
    cwd: project,
    taskId: name,
    mode,
  };
  const attemptId = randomUUID();
  const progress: AttemptProgress[] = [];
  const stream = adapter.stream((p) => progress.push(p));
  const result = await runProcessGroup({
    argv: adapter.argv(invocation),
    cwd: project,
    env: { ...adapter.env(base, invocation), [ATTEMPT_ID_VARIABLE]: attemptId },
    timeoutMs: RUN_TIMEOUT_MS,
    stallTimeoutMs: STALL_TIMEOUT_MS,
    killGraceMs: KILL_GRACE_MS,
    attemptId,
    onOutput: (chunk, from) => {
      if (from === "stdout") stream.push(chunk);
    },
  });
  const raw = adapter.result(result, invocation);
  const outcome = classifyAgentRun({
    ...result,
    stdout: raw === undefined ? result.stdout : JSON.stringify(raw),
    ...(mode === "answer" ? { resultRule: "answer" as const } : {}),
  });
  return { project, result, raw, outcome, stream, progress, attemptId };
}

describe("the Codex adapter with the real Codex CLI", () => {
  it("creates hello.txt with Codex's own exec tool; the result is a success with tokens and cost", async () => {
    const { project, result, raw, outcome, stream, progress, attemptId } = await run(
      "hello",
      "Task id: HELLO-1\nCreate hello.txt with the text hi, then end with <promise>COMPLETE</promise>.",
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(project, "hello.txt"), "utf8")).toBe("hi");
    expect(outcome).toMatchObject({ ok: true, message: "the agent completed the task", numTurns: 1 });
    // Tokens of both model responses, summed by Codex into the turn's total.
    expect(outcome.usage).toEqual({
      inputTokens: 1100,
      outputTokens: 60,
      cacheReadTokens: 1400,
      cacheCreationTokens: 0,
    });
    expect(raw).toMatchObject({ codex_usage: { reasoning_output_tokens: 12 } });
    // gpt-5-codex's list prices: 1100 × $1.25 + 1400 × $0.125 + 60 × $10 per million tokens.
    expect(outcome.costMicroUsd).toBe(2150);
    expect(outcome.sessionId).toBe(stream.sessionId);
    expect(progress.at(-1)).toEqual({ turns: 1, last_tool: "exec_command" });
    const mine = fake.requests().filter((r) => r.taskId === "HELLO-1");
    expect(mine.map((r) => [r.turn, r.warnings])).toEqual([
      [0, []],
      [1, []],
    ]);
    expect(mine[1]?.toolOutputs?.[0]?.output).toContain("Process exited with code 0");
    expect(marked(attemptId)).toEqual([]);
  });

  it("a usage limit (HTTP 429 usage_limit_reached) is rate_limited with its reset time", async () => {
    const { outcome, attemptId } = await run("limit", "Task id: LIMIT-1\nDo it.");
    expect(outcome.reason).toBe("rate_limited");
    expect(outcome.limited?.message).toMatch(/^You’ve hit your usage limit\. Try again at /);
    const until = outcome.limited?.until?.getTime() ?? 0;
    expect(Math.abs(until - (Date.now() + 3_600_000))).toBeLessThan(120_000);
    expect(marked(attemptId)).toEqual([]);
  });

  it("answers without tools (plan generation)", async () => {
    const { outcome } = await run("answer", "Generate: plan\nReply with the plan as JSON.", "answer");
    expect(outcome).toMatchObject({ ok: true, resultText: '{"tasks": []}' });
    const request = fake.requests().find((r) => r.generate === "plan");
    expect(request?.tools).not.toContain("exec_command");
  });
});

/** Live processes whose environment carries `WHILLY_ATTEMPT_ID=<id>`, read from /proc. */
function marked(id: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1").split("\0");
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, "latin1"))?.[1];
      if (environ.includes(`${ATTEMPT_ID_VARIABLE}=${id}`) && state !== "Z") found.push(Number(name));
    } catch {
      // Gone or not ours.
    }
  }
  return found;
}
