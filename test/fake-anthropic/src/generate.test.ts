import { afterEach, describe, expect, it } from "vitest";
import { readRequest } from "./request.js";
import { ScriptError, validateScript } from "./script.js";
import { type FakeAnthropic, startFakeAnthropic } from "./server.js";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });

/** Posts a request the way a generation run sends it: no tools. Returns the reply's first text. */
async function ask(messages: unknown[], tools: unknown[] = []): Promise<string> {
  const res = await fetch(`${fake?.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-claude-code-session-id": "s-1" },
    body: JSON.stringify({ model: "m", stream: false, tools, messages }),
  });
  const reply = (await res.json()) as { content: { type: string; text?: string }[] };
  return reply.content[0]?.text ?? "";
}

describe("fake model: generation requests", () => {
  it("reads `Generate: <name>` as an agent request even without tools; the first marker line wins", () => {
    const facts = readRequest({ messages: [user("Generate: plan\nAttempt: 2 of 2\nTask id: T-9")] });
    expect(facts).toMatchObject({ kind: "agent", generate: "plan", taskId: undefined, attempt: 2 });
    // A task prompt whose description quotes a generation line is still the task's.
    const task = readRequest({
      messages: [user("Task id: T-9\n\nGenerate: plan")],
      tools: [{ name: "Write" }],
    });
    expect(task).toMatchObject({ kind: "agent", generate: undefined, taskId: "T-9" });
    expect(readRequest({ messages: [user("Summarise this")] }).kind).toBe("side");
  });

  it("plays the request's story per attempt, and the default story for a request without one", async () => {
    fake = await startFakeAnthropic({
      script: {
        generate: {
          plan: {
            attempts: [{ turns: [{ text: "cyclic {{task}} {{attempt}}" }] }, { turns: [{ text: "valid" }] }],
          },
        },
        default: { turns: [{ text: "default for {{task}}" }] },
        side_text: "side",
      },
    });
    expect(await ask([user("Generate: plan\nAttempt: 1 of 2")])).toBe("cyclic plan 1");
    expect(await ask([user("Generate: plan\nAttempt: 2 of 2")])).toBe("valid");
    expect(await ask([user("Generate: prd\nAttempt: 1 of 1")])).toBe("default for prd");
    expect(await ask([user("no marker at all")])).toBe("side");
    expect(fake.requests().map((r) => [r.kind, r.script, r.generate])).toEqual([
      ["agent", "generate:plan", "plan"],
      ["agent", "generate:plan", "plan"],
      ["agent", "default", "prd"],
      ["side", "default", undefined],
    ]);
    // The first turn's prompt is logged, so a test can see what the model was told.
    expect(fake.requests()[1]?.prompt).toBe("Generate: plan\nAttempt: 2 of 2");
  });

  it("checks `generate` entries as strictly as tasks", () => {
    expect(() => validateScript({ generate: { plan: { turn: [] } } })).toThrow(ScriptError);
    expect(() => validateScript({ generate: [] })).toThrow(/generate: must be an object/);
    expect(validateScript({ generate: { plan: { attempts: [{ turns: [] }] } } })).toBeDefined();
  });
});
