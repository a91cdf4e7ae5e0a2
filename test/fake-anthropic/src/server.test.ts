import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeScript } from "./script.js";
import { type FakeAnthropic, startFakeAnthropic } from "./server.js";

const SCRIPT: FakeScript = {
  tasks: {
    "T-1": {
      turns: [
        {
          tool_use: {
            name: "Write",
            input: { file_path: "{{cwd}}/a.txt", content: "task {{task}} turn {{turn}}\n" },
          },
        },
        { text: "Done. <promise>COMPLETE</promise>", usage: { input_tokens: 5000, output_tokens: 700 } },
      ],
      exhausted_text: "nothing left for {{task}}",
    },
    "T-2": { turns: [{ text: "other story" }] },
    "T-500": { turns: [{ fault: { status: 500, times: 1 }, text: "after" }] },
    "T-429": { turns: [{ fault: { status: 429, retry_after: 1 } }] },
    "T-BAD": { turns: [{ fault: "malformed" }] },
    "T-HANG": { turns: [{ fault: "hang" }] },
    "T-NOTOOL": { turns: [{ tool_use: { name: "Teleport", input: {} } }] },
  },
  default: { turns: [{ text: "default story" }] },
  side_text: "side answer",
};

const TOOLS = [{ name: "Write" }, { name: "Bash" }, { name: "Read" }];

type Sse = { event: string; data: Record<string, unknown> };

let fake: FakeAnthropic;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fake-anthropic-"));
  fake = await startFakeAnthropic({ script: SCRIPT, log: join(dir, "log.jsonl") });
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function body(taskId: string | undefined, assistantTurns: number, extra: Record<string, unknown> = {}) {
  const messages: unknown[] = [
    { role: "user", content: [{ type: "text", text: `Plan: demo\nTask id: ${taskId ?? "(none)"}\nGo.` }] },
  ];
  if (taskId === undefined) (messages[0] as { content: unknown }).content = "no id here";
  for (let i = 0; i < assistantTurns; i += 1) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${i}`, name: "Write", input: {} }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: `ok ${i}` }],
    });
  }
  return {
    model: "claude-opus-4-6",
    stream: true,
    system: [
      { type: "text", text: "You are a CLI.\nPrimary working directory: /work/proj\nPlatform: linux" },
    ],
    tools: TOOLS,
    messages,
    ...extra,
  };
}

function post(payload: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${fake.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-do-not-log-me" },
    body: JSON.stringify(payload),
    ...init,
  });
}

function parseSse(text: string): Sse[] {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? "null") as Record<string, unknown>;
      return { event, data };
    });
}

type Assembled = {
  blocks: { type: string; text: string; json: string; name?: string }[];
  stopReason: unknown;
  usage: Record<string, unknown>;
};

/** Rebuilds the assistant message from its events, as the SDK does. */
function assemble(events: Sse[]): Assembled {
  const message: Assembled = { blocks: [], stopReason: undefined, usage: {} };
  for (const { event, data } of events) {
    expect(data.type).toBe(event);
    apply(message, event, data);
  }
  return message;
}

function apply(message: Assembled, event: string, data: Record<string, unknown>): void {
  const index = data.index as number;
  if (event === "message_start") message.usage = (data.message as { usage: Record<string, unknown> }).usage;
  if (event === "content_block_start") {
    const block = data.content_block as { type: string; name?: string };
    message.blocks[index] = {
      type: block.type,
      text: "",
      json: "",
      ...(block.name ? { name: block.name } : {}),
    };
  }
  if (event === "content_block_delta") {
    const delta = data.delta as { type: string; text?: string; partial_json?: string };
    const block = message.blocks[index];
    if (!block) throw new Error("delta before start");
    block.text += delta.text ?? "";
    block.json += delta.partial_json ?? "";
  }
  if (event === "message_delta") {
    message.stopReason = (data.delta as { stop_reason: unknown }).stop_reason;
    message.usage = { ...message.usage, ...(data.usage as Record<string, unknown>) };
  }
}

describe("fake Messages API", () => {
  it("answers the CLI's connectivity probes", async () => {
    expect((await fetch(`${fake.url}/`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${fake.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    expect(fake.requests().map((r) => r.kind)).toEqual(["probe", "probe"]);
  });

  it("streams a scripted tool call with {{cwd}}, {{task}} and {{turn}} filled in", async () => {
    const res = await post(body("T-1", 0));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await res.text());
    expect(events[0]?.event).toBe("message_start");
    expect(events.at(-1)?.event).toBe("message_stop");
    const message = assemble(events);
    expect(message.stopReason).toBe("tool_use");
    expect(message.blocks).toHaveLength(1);
    expect(message.blocks[0]?.name).toBe("Write");
    expect(JSON.parse(message.blocks[0]?.json ?? "")).toEqual({
      file_path: "/work/proj/a.txt",
      content: "task T-1 turn 0\n",
    });
  });

  it("picks the turn from the number of assistant messages, statelessly", async () => {
    for (let i = 0; i < 2; i += 1) {
      const message = assemble(parseSse(await (await post(body("T-1", 1))).text()));
      expect(message.stopReason).toBe("end_turn");
      expect(message.blocks[0]?.text).toBe("Done. <promise>COMPLETE</promise>");
      expect(message.usage).toMatchObject({ input_tokens: 5000, output_tokens: 700 });
    }
    const exhausted = assemble(parseSse(await (await post(body("T-1", 2))).text()));
    expect(exhausted.blocks[0]?.text).toBe("nothing left for T-1");
    const log = fake.requests();
    expect(log.map((r) => r.turn)).toEqual([1, 1, 2]);
    expect(log[0]?.toolResults).toEqual([{ id: "t0", isError: false, text: "ok 0" }]);
  });

  it("answers non-streaming requests with a message object", async () => {
    const res = await post(body("T-2", 0, { stream: false }));
    const message = (await res.json()) as Record<string, unknown>;
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-opus-4-6",
      content: [{ type: "text", text: "other story" }],
      stop_reason: "end_turn",
    });
    expect((message.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });

  it("chooses the script by the prompt's task id, else the default", async () => {
    const text = async (payload: unknown) =>
      assemble(parseSse(await (await post(payload)).text())).blocks[0]?.text;
    expect(await text(body("T-2", 0))).toBe("other story");
    expect(await text(body("NOPE-9", 0))).toBe("default story");
    expect(await text(body(undefined, 0))).toBe("default story");
    expect(fake.requests().map((r) => r.script)).toEqual(["T-2", "default", "default"]);
  });

  it("has a built-in answer when the script has no default", async () => {
    fake.setScript({ tasks: {} });
    const message = assemble(parseSse(await (await post(body("X", 0))).text()));
    expect(message.blocks[0]?.text).toContain("no script");
  });

  it("answers tool-less side requests and warmups without touching the story", async () => {
    const side = assemble(parseSse(await (await post(body("T-1", 0, { tools: [] }))).text()));
    expect(side.blocks[0]?.text).toBe("side answer");
    const warm = body("T-1", 0);
    warm.messages = [{ role: "user", content: "Warmup" }];
    const warmup = assemble(parseSse(await (await post(warm)).text()));
    expect(warmup.blocks[0]?.text).toBe("Warm.");
    expect(fake.requests().map((r) => r.kind)).toEqual(["side", "warmup"]);
  });

  it("serves an HTTP error the given number of times, then the turn", async () => {
    const first = await post(body("T-500", 0));
    expect(first.status).toBe(500);
    expect(await first.json()).toEqual({
      type: "error",
      error: { type: "api_error", message: "fake injected HTTP 500" },
    });
    const second = await post(body("T-500", 0));
    expect(second.status).toBe(200);
    expect(assemble(parseSse(await second.text())).blocks[0]?.text).toBe("after");
    expect(fake.requests().map((r) => r.fault)).toEqual(["status 500", undefined]);
  });

  it("sends rate-limit errors with retry-after", async () => {
    const res = await post(body("T-429", 0));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
  });

  it("sends a malformed stream", async () => {
    const res = await post(body("T-BAD", 0));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("event: message_start");
    expect(() => parseSse(text)).toThrow(SyntaxError);
    const plain = await post(body("T-BAD", 0, { stream: false }));
    expect(plain.status).toBe(200);
    await expect(plain.json()).rejects.toThrow();
  });

  it("hangs without answering, and still closes", async () => {
    const res = post(body("T-HANG", 0), { signal: AbortSignal.timeout(300) });
    await expect(res).rejects.toThrow();
    expect(fake.requests().at(-1)?.fault).toBe("hang");
  });

  it("warns when the script calls a tool the request did not offer", async () => {
    await (await post(body("T-NOTOOL", 0))).text();
    expect(fake.requests()[0]?.warnings).toEqual(["tools_not_offered: Teleport"]);
  });

  it("logs requests as JSON lines without headers or the API key", async () => {
    await (await post(body("T-1", 0))).text();
    const lines = (await readFile(join(dir, "log.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ kind: "agent", taskId: "T-1", turn: 0, stream: true });
    expect(lines[0]).not.toContain("sk-ant-do-not-log-me");
  });

  it("rejects a bad body and unknown routes with Anthropic error envelopes", async () => {
    const bad = await fetch(`${fake.url}/v1/messages`, { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const missing = await fetch(`${fake.url}/v1/other`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
  });

  it("loads a script file", async () => {
    const file = join(dir, "script.json");
    await writeFile(file, JSON.stringify({ default: { turns: [{ text: "from file" }] } }));
    const other = await startFakeAnthropic({ scriptFile: file });
    try {
      const res = await fetch(`${other.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify(body("A", 0, { stream: false })),
      });
      expect(((await res.json()) as { content: { text: string }[] }).content[0]?.text).toBe("from file");
    } finally {
      await other.close();
    }
  });
});

describe("startFakeAnthropic with a script file", () => {
  let scratch: string;
  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), "fake-anthropic-file-"));
  });
  afterEach(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("refuses to start on a typo, naming the file, the key and the keys allowed", async () => {
    const file = join(scratch, "typo.json");
    await writeFile(file, JSON.stringify({ task: { "T-1": { turns: [{ text: "hi" }] } } }));
    await expect(startFakeAnthropic({ scriptFile: file })).rejects.toThrow(
      `task: unknown key "task"; the keys allowed here are tasks, generate, default, side_text, fault (in script file ${file}; see docs/fake-model.md)`,
    );
  });

  it("refuses text that is not JSON, naming the file", async () => {
    const file = join(scratch, "broken.json");
    await writeFile(file, '{"tasks": ');
    await expect(startFakeAnthropic({ scriptFile: file })).rejects.toThrow(`script file ${file}: not JSON`);
  });
});

describe("examples/any-plan.script.json", () => {
  it("plays its default story for any task id: one file written under the task's name, then done", async () => {
    const file = fileURLToPath(new URL("../../../examples/any-plan.script.json", import.meta.url));
    const other = await startFakeAnthropic({ scriptFile: file });
    try {
      const ask = async (turns: number) => {
        const res = await fetch(`${other.url}/v1/messages`, {
          method: "POST",
          body: JSON.stringify(body("MY-TASK-7", turns, { stream: false })),
        });
        return (await res.json()) as { content: { type: string; text?: string; input?: unknown }[] };
      };
      expect((await ask(0)).content).toEqual([
        expect.objectContaining({
          type: "tool_use",
          input: {
            file_path: "/work/proj/scripted-MY-TASK-7.md",
            content: "Task MY-TASK-7 was handled by the scripted fake model: no real work was done.\n",
          },
        }),
      ]);
      expect((await ask(1)).content[0]?.text).toMatch(/<promise>COMPLETE<\/promise>$/);
    } finally {
      await other.close();
    }
  });
});
