import { describe, expect, it } from "vitest";
import { ScriptError, validateScript } from "./script.js";

function pathOf(value: unknown): string | undefined {
  try {
    validateScript(value);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ScriptError);
    return (error as ScriptError).path;
  }
}

describe("validateScript", () => {
  it("accepts the documented shapes", () => {
    expect(
      pathOf({
        tasks: {
          A: {
            turns: [
              { tool_use: { name: "Write", input: { file_path: "x" } }, usage: { output_tokens: 3 } },
              { tool_uses: [{ name: "Bash", input: { command: "ls" } }], delay_ms: 5 },
              { fault: { status: 529, times: 2 } },
              { fault: "hang" },
              { text: "done" },
            ],
            fault: { kind: "malformed" },
          },
          B: { attempts: [{ turns: [{ fault: { status: 429, for_ms: 3000 } }] }, { turns: [] }] },
        },
        default: { turns: [] },
        side_text: "none",
        fault: { status: 529, for_ms: 500 },
      }),
    ).toBeUndefined();
  });

  it.each([
    [[], "script"],
    [{ tasks: [] }, "tasks"],
    [{ tasks: { A: {} } }, "tasks.A.turns"],
    [{ tasks: { A: { attempts: [] } } }, "tasks.A.attempts"],
    [{ tasks: { A: { attempts: [{ turns: [] }], turns: [] } } }, "tasks.A.turns"],
    [{ tasks: { A: { attempts: [{ turns: [], attempts: [] }] } } }, "tasks.A.attempts[0].attempts"],
    [{ tasks: { A: { attempts: [{ turns: [{ tex: "x" }] }] } } }, "tasks.A.attempts[0].turns[0].tex"],
    [{ default: { turns: [{ fault: { status: 429, for_ms: 0 } }] } }, "default.turns[0].fault.for_ms"],
    [
      { default: { turns: [{ fault: { status: 429, for_ms: 5, times: 1 } }] } },
      "default.turns[0].fault.for_ms",
    ],
    [{ fault: { status: 429, for: 5 } }, "fault.for"],
    [{ tasks: { A: { turns: [{ text: 1 }] } } }, "tasks.A.turns[0].text"],
    [{ tasks: { A: { turns: [{ tool_use: { name: "", input: {} } }] } } }, "tasks.A.turns[0].tool_use.name"],
    [{ tasks: { A: { turns: [{ tool_use: { name: "W" } }] } } }, "tasks.A.turns[0].tool_use.input"],
    [{ default: { turns: [{ usage: { input_tokens: -1 } }] } }, "default.turns[0].usage.input_tokens"],
    [{ default: { turns: [{ fault: { status: 200 } }] } }, "default.turns[0].fault"],
    [{ default: { turns: [], fault: { status: 500, times: 0 } } }, "default.fault.times"],
    [{ side_text: 3 }, "side_text"],
  ])("rejects %j at %s", (value, path) => {
    expect(pathOf(value)).toBe(path);
  });
});

describe("validateScript on unknown keys", () => {
  function messageOf(value: unknown): string {
    try {
      validateScript(value);
    } catch (error) {
      expect(error).toBeInstanceOf(ScriptError);
      return (error as ScriptError).message;
    }
    throw new Error("expected a ScriptError");
  }

  it("refuses a typo at the top level, naming it and the keys allowed", () => {
    expect(messageOf({ task: { A: { turns: [] } } })).toBe(
      'task: unknown key "task"; the keys allowed here are tasks, generate, default, side_text, fault',
    );
  });

  it.each([
    [{ default: { turn: [] } }, "default.turn"],
    [{ tasks: { A: { turns: [{ txt: "done" }] } } }, "tasks.A.turns[0].txt"],
    [
      { tasks: { A: { turns: [{ tool_use: { name: "Write", input: {}, id: "x" } }] } } },
      "tasks.A.turns[0].tool_use.id",
    ],
    [{ default: { turns: [{ usage: { output: 3 } }] } }, "default.turns[0].usage.output"],
    [{ default: { turns: [{ fault: { status: 500, time: 1 } }] } }, "default.turns[0].fault.time"],
    [{ default: { turns: [], exhausted: "x" } }, "default.exhausted"],
  ])("refuses %j at %s", (value, path) => {
    expect(pathOf(value)).toBe(path);
  });
});
