import { describe, expect, it } from "vitest";
import { GeminiScriptError, validateGeminiScript } from "./script.js";

describe("validateGeminiScript", () => {
  it("accepts stories with text, function calls, usage and every kind of fault", () => {
    const script = {
      tasks: {
        A: {
          turns: [
            { text: "hi", function_calls: [{ name: "write_file", args: { file_path: "a", content: "b" } }] },
            {
              usage: { prompt_tokens: 1, thoughts_tokens: 2 },
              delay_ms: 5,
              fault: { status: 429, times: 1, quota_id: "PerDay" },
            },
          ],
          fault: "cut",
          exhausted_text: "done",
        },
      },
      generate: { plan: { attempts: [{ turns: [{ text: "{}" }] }, { turns: [] }] } },
      default: { turns: [], fault: { kind: "hang" } },
      side_text: "{}",
      fault: { status: 400, reason: "API_KEY_INVALID", retry_delay: 3, message: "m" },
    };
    expect(validateGeminiScript(script)).toBe(script);
  });

  it("names the first bad field and what is wrong with it", () => {
    const cases: [unknown, string][] = [
      [[], "script: must be an object"],
      [
        { task: {} },
        'task: unknown key "task"; the keys allowed here are tasks, generate, default, side_text, fault',
      ],
      [{ default: { turns: {} } }, "default.turns: must be an array"],
      [
        { default: { turns: [{ function_calls: [{ name: "", args: {} }] }] } },
        "default.turns[0].function_calls[0].name: must be a tool name",
      ],
      [
        { default: { turns: [{ function_calls: [{ name: "x", input: {} }] }] } },
        'default.turns[0].function_calls[0].input: unknown key "input"; the keys allowed here are name, args',
      ],
      [
        { default: { turns: [{ usage: { prompt_tokens: -1 } }] } },
        "default.turns[0].usage.prompt_tokens: must be a non-negative integer",
      ],
      [
        { fault: { status: 200 } },
        'fault: needs "status" (400-599) or "kind" ("cut", "malformed" or "hang")',
      ],
      [{ fault: "slow" }, "fault: must be an object"],
      [
        { generate: { plan: { attempts: [] } } },
        "generate.plan.attempts: must be a non-empty array of stories",
      ],
      [
        { tasks: { T: { attempts: [{ turns: [] }], turns: [] } } },
        'tasks.T.turns: cannot stand beside "attempts"',
      ],
      [
        { tasks: { T: { turns: [], fault: { status: 429, times: 0 } } } },
        "tasks.T.fault.times: must be a positive number",
      ],
    ];
    for (const [script, message] of cases) {
      expect(() => validateGeminiScript(script)).toThrow(GeminiScriptError);
      expect(() => validateGeminiScript(script)).toThrow(message);
    }
  });
});
