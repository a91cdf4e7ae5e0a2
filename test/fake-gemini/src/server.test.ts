import { afterEach, describe, expect, it } from "vitest";
import { type FakeGemini, startFakeGemini } from "./server.js";

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const TOOLS = [{ functionDeclarations: [{ name: "write_file" }, { name: "run_shell_command" }] }];
const context = "<session_context>\n- **Workspace Directories:**\n  - /work/project\n</session_context>";

function user(text: string) {
  return { role: "user", parts: [{ text: context }, { text }] };
}

async function stream(url: string, contents: unknown[], model = "gemini-2.5-pro") {
  const res = await fetch(`${url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "secret-key" },
    body: JSON.stringify({ contents, tools: TOOLS }),
  });
  const text = await res.text();
  const chunks = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map(
      (l) =>
        JSON.parse(l.slice(6)) as {
          candidates: { content: { parts: Record<string, unknown>[] } }[];
          usageMetadata?: Record<string, number>;
        },
    );
  return {
    status: res.status,
    text,
    chunks,
    parts: chunks.flatMap((c) => c.candidates[0]?.content.parts ?? []),
  };
}

describe("fake Gemini API", () => {
  it("plays a task's turns by the model contents since its prompt, filling placeholders", async () => {
    fake = await startFakeGemini({
      script: {
        tasks: {
          T1: {
            turns: [
              {
                text: "Writing.",
                function_calls: [
                  { name: "write_file", args: { file_path: "{{cwd}}/a.txt", content: "{{task}}" } },
                ],
              },
              {
                text: "Done <promise>COMPLETE</promise>",
                usage: { prompt_tokens: 500, candidates_tokens: 7, thoughts_tokens: 3, cached_tokens: 100 },
              },
            ],
          },
        },
      },
    });
    const first = await stream(fake.url, [user("Task id: T1\nWrite a.")]);
    expect(first.status).toBe(200);
    expect(first.parts).toEqual([
      { text: "Writ" },
      { text: "ing." },
      { functionCall: { name: "write_file", args: { file_path: "/work/project/a.txt", content: "T1" } } },
    ]);
    const history = [
      user("Task id: T1\nWrite a."),
      { role: "model", parts: first.parts },
      { role: "user", parts: [{ functionResponse: { name: "write_file", response: { output: "ok" } } }] },
    ];
    const second = await stream(fake.url, history);
    expect(second.parts.map((p) => p.text).join("")).toBe("Done <promise>COMPLETE</promise>");
    expect(second.chunks.at(-1)?.usageMetadata).toEqual({
      promptTokenCount: 500,
      candidatesTokenCount: 7,
      cachedContentTokenCount: 100,
      thoughtsTokenCount: 3,
      totalTokenCount: 510,
    });
    const log = fake.requests();
    expect(log.map((r) => [r.kind, r.script, r.turn])).toEqual([
      ["agent", "T1", 0],
      ["agent", "T1", 1],
    ]);
    expect(log[1]?.toolResults).toEqual([{ name: "write_file", text: '{"output":"ok"}' }]);
    expect(JSON.stringify(log)).not.toContain("secret-key");
    // A new prompt in the same session (a resume) starts its story at turn 0 again.
    const resumed = await stream(fake.url, [
      ...history,
      { role: "model", parts: second.parts },
      user("Task id: T1\nAgain."),
    ]);
    expect(resumed.parts[2]).toMatchObject({ functionCall: { name: "write_file" } });
  });

  it("plays a story per attempt and generation requests by name", async () => {
    fake = await startFakeGemini({
      script: {
        tasks: {
          T2: { attempts: [{ turns: [{ text: "first try" }] }, { turns: [{ text: "second try" }] }] },
        },
        generate: { plan: { turns: [{ text: '{"tasks": []}' }] } },
      },
    });
    const say = async (prompt: string) =>
      (await stream(fake?.url ?? "", [user(prompt)])).parts.map((p) => p.text).join("");
    expect(await say("Task id: T2\nAttempt: 1 of 3")).toBe("first try");
    expect(await say("Task id: T2\nAttempt: 2 of 3")).toBe("second try");
    expect(await say("Task id: T2\nAttempt: 3 of 3")).toBe("second try");
    expect(await say("Generate: plan\nTask id: in the example")).toBe('{"tasks": []}');
    expect(await say("Task id: OTHER")).toBe("The fake model has no script for this task.");
    expect(fake.requests().map((r) => [r.script, r.attempt])).toEqual([
      ["T2", 1],
      ["T2", 2],
      ["T2", 3],
      ["generate:plan", 1],
      ["default", 1],
    ]);
  });

  it("serves faults with Google API error bodies, counted by times, and warns about tools not offered", async () => {
    fake = await startFakeGemini({
      script: {
        default: {
          turns: [
            {
              function_calls: [{ name: "web_fetch", args: {} }],
              fault: { status: 429, times: 1, quota_id: "PerDay", retry_delay: 30 },
            },
          ],
        },
      },
    });
    const refused = await stream(fake.url, [user("hi")]);
    expect(refused.status).toBe(429);
    const body = JSON.parse(refused.text) as {
      error: { code: number; status: string; details: { "@type": string }[] };
    };
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(body.error.details.map((d) => d["@type"].split(".").pop())).toEqual(["QuotaFailure", "RetryInfo"]);
    const played = await stream(fake.url, [user("hi")]);
    expect(played.parts).toEqual([{ functionCall: { name: "web_fetch", args: {} } }]);
    expect(fake.requests().map((r) => [r.fault, r.warnings])).toEqual([
      ["status 429", []],
      [undefined, ["tools_not_offered: web_fetch"]],
    ]);
  });

  it("cuts a stream after its first chunk and answers side calls, countTokens and unknown routes", async () => {
    fake = await startFakeGemini({ script: { default: { turns: [], fault: "cut" }, side_text: "side" } });
    await expect(stream(fake.url, [user("hi")])).rejects.toThrow();
    const side = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      body: "{}",
    });
    expect(
      ((await side.json()) as { candidates: { content: { parts: unknown[] } }[] }).candidates[0]?.content
        .parts,
    ).toEqual([{ text: "side" }]);
    const count = await fetch(`${fake.url}/v1beta/models/gemini-2.5-pro:countTokens`, {
      method: "POST",
      body: "{}",
    });
    expect(await count.json()).toEqual({ totalTokens: 1200 });
    expect((await fetch(`${fake.url}/v1beta/models`)).status).toBe(404);
    expect(fake.requests().map((r) => r.kind)).toEqual(["agent", "side", "count", "other"]);
  });
});
