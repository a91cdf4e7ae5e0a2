import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "./cli.js";
import { readRequest } from "./request.js";
import { type FakeScript, ScriptError, validateScript } from "./script.js";
import { type FakeOpenAI, startFakeOpenAI } from "./server.js";

const SCRIPT: FakeScript = {
  tasks: {
    "T-1": {
      turns: [
        { call: { name: "exec_command", arguments: { cmd: "printf hi > a.txt", workdir: "{{cwd}}" } } },
        {
          text: "Done {{task}}. <promise>COMPLETE</promise>",
          usage: { input_tokens: 5000, cached_tokens: 4000 },
        },
      ],
      exhausted_text: "nothing left for {{task}}",
    },
    "T-500": { turns: [{ fault: { status: 500, times: 1 }, text: "after" }] },
    "T-LIMIT": { turns: [], fault: { status: 429, type: "usage_limit_reached", resets_at: 1_800_000_000 } },
    "T-401": { turns: [], fault: { status: 401, code: "invalid_api_key" } },
    "T-CUT": { turns: [], fault: "cut" },
    "T-FAILED": { turns: [], fault: { kind: "failed", code: "rate_limit_exceeded", message: "slow down" } },
    "T-ATT": { attempts: [{ turns: [{ text: "first" }] }, { turns: [{ text: "second" }] }] },
  },
  generate: { plan: { turns: [{ text: '{"tasks": []}' }] } },
  default: { turns: [{ text: "default story" }] },
};

/** A request body as Codex 0.171 sends it: developer text, the environment, the prompt, then history. */
function body(prompt: string, history: unknown[] = []) {
  return {
    model: "gpt-5-codex",
    stream: true,
    tools: [{ type: "function", name: "exec_command" }, { type: "web_search" }],
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions/>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "<cwd>/work/p</cwd>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
      ...history,
    ],
  };
}

const call = (id: string) => ({ type: "function_call", name: "exec_command", arguments: "{}", call_id: id });
const output = (id: string) => ({
  type: "function_call_output",
  call_id: id,
  output: "Process exited with code 0",
});

let fake: FakeOpenAI;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fake-openai-"));
  fake = await startFakeOpenAI({ script: SCRIPT, log: join(dir, "log.jsonl") });
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(payload: unknown) {
  const res = await fetch(`${fake.url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-secret" },
    body: JSON.stringify(payload),
  });
  // Read chunk by chunk, so a stream the fake cuts keeps what came before the cut.
  let text = "";
  let cut = false;
  const decoder = new TextDecoder();
  const reader = res.body?.getReader();
  try {
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    cut = true;
  }
  return { status: res.status, text, cut, events: sse(text) };
}

function sse(text: string): { type: string; [key: string]: unknown }[] {
  return [...text.matchAll(/^data: (.*)$/gm)].flatMap((m) => {
    try {
      return [JSON.parse(m[1] ?? "")];
    } catch {
      return [];
    }
  });
}

describe("the fake Responses API", () => {
  it("plays a task's turns as SSE: a function call, then a message, each with its usage", async () => {
    const first = await post(body("Task id: T-1\nGo."));
    expect(first.status).toBe(200);
    expect(first.events.map((e) => e.type)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    const item = first.events[2]?.item as { name: string; arguments: string; call_id: string };
    expect(item.name).toBe("exec_command");
    expect(JSON.parse(item.arguments)).toEqual({ cmd: "printf hi > a.txt", workdir: "/work/p" });

    const second = await post(body("Task id: T-1\nGo.", [call(item.call_id), output(item.call_id)]));
    const done = second.events.find((e) => e.type === "response.output_item.done")?.item as {
      content: unknown;
    };
    expect(done.content).toEqual([
      { type: "output_text", text: "Done T-1. <promise>COMPLETE</promise>", annotations: [] },
    ]);
    expect(second.events.at(-1)?.response).toHaveProperty("usage", {
      input_tokens: 5000,
      input_tokens_details: { cached_tokens: 4000 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 5050,
    });
    const third = await post(body("Task id: T-1\nGo.", [call("a"), output("a"), call("b"), output("b")]));
    expect(third.text).toContain("nothing left for T-1");

    const log = fake.requests();
    expect(log.map((r) => [r.taskId, r.turn, r.script])).toEqual([
      ["T-1", 0, "T-1"],
      ["T-1", 1, "T-1"],
      ["T-1", 2, "T-1"],
    ]);
    expect(log[0]).toMatchObject({ prompt: "Task id: T-1\nGo.", tools: ["exec_command", "web_search"] });
    expect(log[1]?.toolOutputs).toEqual([{ callId: item.call_id, output: "Process exited with code 0" }]);
    const file = await readFile(join(dir, "log.jsonl"), "utf8");
    expect(file.trim().split("\n")).toHaveLength(3);
    expect(file).not.toContain("sk-secret");
  });

  it("serves a usage limit, a 401 and a 500 with OpenAI error bodies; `times` lets a retry through", async () => {
    const limit = await post(body("Task id: T-LIMIT"));
    expect(limit.status).toBe(429);
    expect(JSON.parse(limit.text)).toEqual({
      error: {
        message: "The usage limit has been reached",
        type: "usage_limit_reached",
        param: null,
        code: null,
        resets_at: 1_800_000_000,
      },
    });
    expect(JSON.parse((await post(body("Task id: T-401"))).text).error.code).toBe("invalid_api_key");
    expect((await post(body("Task id: T-500"))).status).toBe(500);
    expect((await post(body("Task id: T-500"))).text).toContain("after");
  });

  it("cuts a stream mid-event, and fails one in-band with response.failed", async () => {
    const cut = await post(body("Task id: T-CUT"));
    expect(cut.cut).toBe(true);
    expect(cut.events.map((e) => e.type)).toEqual(["response.created"]);
    expect(cut.text).toMatch(/data: \{"type":"response\.output_item\.ad$/);
    expect(cut.events.some((e) => e.type === "response.completed")).toBe(false);
    const failed = await post(body("Task id: T-FAILED"));
    expect(failed.events.at(-1)).toMatchObject({
      type: "response.failed",
      response: { error: { code: "rate_limit_exceeded", message: "slow down" } },
    });
  });

  it("plays a story per attempt, generation requests by name, and the default for the rest", async () => {
    expect((await post(body("Task id: T-ATT\nAttempt: 2 of 3"))).text).toContain("second");
    expect((await post(body("Generate: plan\nTask id: ignored"))).text).toContain('{\\"tasks\\": []}');
    expect((await post(body("no id"))).text).toContain("default story");
    expect(fake.requests().map((r) => r.script)).toEqual(["T-ATT", "generate:plan", "default"]);
  });

  it("answers anything else with a 404 the log records", async () => {
    const res = await fetch(`${fake.url}/models`);
    expect(res.status).toBe(404);
    expect(fake.requests()[0]).toMatchObject({ kind: "other", path: "/v1/models" });
  });
});

describe("readRequest", () => {
  it("counts model responses since the latest attempt line, a run of calls being one response", () => {
    const resumed = body("Task id: T-1\nAttempt: 1 of 2", [
      call("a"),
      call("b"),
      output("a"),
      output("b"),
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "no" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Attempt: 2 of 2\nAgain." }] },
      call("c"),
      output("c"),
    ]);
    expect(readRequest(resumed)).toMatchObject({
      taskId: "T-1",
      attempt: 2,
      turn: 1,
      prompt: "Attempt: 2 of 2\nAgain.",
    });
    expect(readRequest(body("x", [call("a"), output("a"), call("b"), output("b")])).turn).toBe(2);
  });

  it("tolerates any shape", () => {
    for (const value of [null, 7, "x", [], { input: "x" }, { input: [null, 1, { type: 3 }] }]) {
      expect(readRequest(value)).toMatchObject({ turn: 0, attempt: 1, taskId: undefined });
    }
  });
});

describe("validateScript", () => {
  it.each([
    [{ task: {} }, /^task: unknown key "task"/],
    [
      { tasks: { A: { turns: [{ call: { name: "x" } }] } } },
      /^tasks\.A\.turns\[0\]\.call\.arguments: must be an object/,
    ],
    [{ default: { turns: [], fault: { status: 200 } } }, /^default\.fault: needs one of/],
    [{ default: { turns: [], fault: { kind: "cut", status: 500 } } }, /^default\.fault: needs one of/],
    [{ default: { attempts: [] } }, /^default\.attempts: must be a non-empty array/],
  ])("refuses %j", (script, message) => {
    expect(() => validateScript(script)).toThrow(ScriptError);
    expect(() => validateScript(script)).toThrow(message);
  });
});

describe("fake-openai command", () => {
  it("refuses a bad script file with exit 2", async () => {
    const file = join(dir, "bad.json");
    await writeFile(file, '{"tasks": 1}');
    expect(await main(["--script", file])).toBe(2);
    expect(await main(["--port", "x"])).toBe(2);
  });
});
