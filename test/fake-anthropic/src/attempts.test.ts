import { afterEach, describe, expect, it } from "vitest";
import type { FakeScript } from "./script.js";
import { type FakeAnthropic, startFakeAnthropic } from "./server.js";

let fake: FakeAnthropic | undefined;
let now = 0;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  now = 0;
});

async function start(script: FakeScript): Promise<FakeAnthropic> {
  fake = await startFakeAnthropic({ script, clock: () => now });
  return fake;
}

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const toolTurn = (i: number) => [
  { role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "Write", input: {} }] },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "Attempt: 9 of 9 (in a tool's output)" }],
  },
];

/** Posts a non-streaming request; returns the status and the reply's first text or tool name. */
async function ask(messages: unknown[], session = "s-1"): Promise<{ status: number; said: string }> {
  const res = await fetch(`${fake?.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-claude-code-session-id": session },
    body: JSON.stringify({ model: "m", stream: false, tools: [{ name: "Write" }], messages }),
  });
  if (res.status !== 200) return { status: res.status, said: "" };
  const reply = (await res.json()) as { content: { type: string; text?: string; name?: string }[] };
  const first = reply.content[0];
  return { status: 200, said: first?.type === "text" ? (first.text ?? "") : `tool ${first?.name}` };
}

const STORIES: FakeScript = {
  tasks: {
    "T-1": {
      attempts: [
        { turns: [{ text: "first try {{attempt}}" }] },
        { turns: [{ tool_use: { name: "Write", input: {} } }, { text: "second try, turn {{turn}}" }] },
      ],
    },
  },
};

describe("fake model: a story per attempt", () => {
  it("plays attempts[N-1] for `Attempt: N of M`, the last story past the end, the first without a line", async () => {
    await start(STORIES);
    expect((await ask([user("Task id: T-1\nAttempt: 1 of 3")])).said).toBe("first try 1");
    expect((await ask([user("Task id: T-1\nAttempt: 2 of 3")])).said).toBe("tool Write");
    expect((await ask([user("Task id: T-1\nAttempt: 2 of 3"), ...toolTurn(0)])).said).toBe(
      "second try, turn 1",
    );
    expect((await ask([user("Task id: T-1\nAttempt: 3 of 3")])).said).toBe("tool Write");
    expect((await ask([user("Task id: T-1")])).said).toBe("first try 1");
    expect(fake?.requests().map((r) => r.attempt)).toEqual([1, 2, 2, 3, 1]);
  });

  it("counts a resumed session's turns from the latest attempt line, not from the start", async () => {
    await start(STORIES);
    const resumed = [
      user("Task id: T-1\nAttempt: 1 of 3"),
      ...toolTurn(0),
      { role: "assistant", content: [{ type: "text", text: "first try" }] },
      user("Task id: T-1\nAttempt: 2 of 3\nYour previous attempt did not pass."),
    ];
    expect((await ask(resumed)).said).toBe("tool Write");
    expect((await ask([...resumed, ...toolTurn(1)])).said).toBe("second try, turn 1");
    expect(fake?.requests().map((r) => r.turn)).toEqual([0, 1]);
    // The log keeps the prompt of an attempt's first turn: the follow-up, not the original.
    expect(fake?.requests().map((r) => r.prompt)).toEqual([
      "Task id: T-1\nAttempt: 2 of 3\nYour previous attempt did not pass.",
      undefined,
    ]);
  });
});

describe("fake model: a fault held for a span of time", () => {
  it("a turn's fault fails every request, in every session, until for_ms passed since the first", async () => {
    await start({ tasks: { T: { turns: [{ fault: { status: 429, for_ms: 3000 }, text: "through" }] } } });
    const prompt = [user("Task id: T\nAttempt: 1 of 3")];
    expect((await ask(prompt)).status).toBe(429);
    now = 2999;
    expect((await ask(prompt, "another session")).status).toBe(429);
    now = 3000;
    expect(await ask(prompt)).toEqual({ status: 200, said: "through" });
    expect(await ask(prompt, "a third session")).toEqual({ status: 200, said: "through" });
  });

  it("a story's fault holds from its first request for every turn; the script's for any task", async () => {
    await start({
      tasks: { S: { turns: [{ text: "s0" }, { text: "s1" }], fault: { status: 529, for_ms: 100 } } },
      default: { turns: [{ text: "default" }] },
      fault: { status: 503, for_ms: 50 },
    });
    expect((await ask([user("Task id: S")])).status).toBe(529);
    expect((await ask([user("Task id: X")])).status).toBe(503);
    now = 60;
    expect((await ask([user("Task id: X")])).said).toBe("default");
    expect((await ask([user("Task id: S"), ...toolTurn(0)])).status).toBe(529);
    now = 100;
    expect((await ask([user("Task id: S"), ...toolTurn(0)])).said).toBe("s1");
  });

  it("starts its clocks over when the script is replaced", async () => {
    const script: FakeScript = { default: { turns: [{ fault: { status: 429, for_ms: 10 }, text: "ok" }] } };
    await start(script);
    expect((await ask([user("go")])).status).toBe(429);
    now = 10;
    expect((await ask([user("go")])).status).toBe(200);
    fake?.setScript(script);
    expect((await ask([user("go")])).status).toBe(429);
  });
});
