import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AttemptProgress } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { GeminiStreamReader } from "./stream.js";

const fixtures = fileURLToPath(new URL("../../../../test/fixtures/gemini/", import.meta.url));
const stdoutOf = (name: string): string =>
  (JSON.parse(readFileSync(`${fixtures}${name}.json`, "utf8")) as { stdout: string }).stdout;

describe("GeminiStreamReader", () => {
  it("follows session, turns and the last tool through chunks cut anywhere", () => {
    const stdout = stdoutOf("happy");
    for (const size of [1, 7, 64, stdout.length]) {
      const seen: AttemptProgress[] = [];
      const reader = new GeminiStreamReader((p) => seen.push(p));
      for (let i = 0; i < stdout.length; i += size) reader.push(stdout.slice(i, i + size));
      expect(reader.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(reader.progress).toEqual({ turns: 3, last_tool: "run_shell_command" });
      expect(seen).toEqual([
        { turns: 1 },
        { turns: 1, last_tool: "write_file" },
        { turns: 2, last_tool: "run_shell_command" },
        { turns: 3, last_tool: "run_shell_command" },
      ]);
      expect(reader.limitResetsAt).toBeUndefined();
    }
  });

  it("counts parallel tool calls as one turn and skips what is not an event", () => {
    const reader = new GeminiStreamReader();
    reader.push("Loaded cached credentials.\n[1]\nnull\n{broken\n");
    reader.push('{"type":"tool_use","tool_name":"read_file"}\n{"type":"tool_use","tool_name":"glob"}\n');
    reader.push(
      '{"type":"tool_result"}\n{"type":"tool_result"}\n{"type":"message","role":"user","content":"x"}\n',
    );
    reader.push('{"type":"message","role":"assistant","content":"done"}');
    expect(reader.progress).toEqual({ turns: 1, last_tool: "glob" });
    reader.push("\n");
    expect(reader.progress).toEqual({ turns: 2, last_tool: "glob" });
    expect(reader.sessionId).toBeUndefined();
  });

  it("keeps reading when the progress callback throws, and drops a line too long to be an event", () => {
    const reader = new GeminiStreamReader(() => {
      throw new Error("caller bug");
    });
    reader.push(`${"x".repeat(1024 * 1024 + 10)}`);
    reader.push('\n{"type":"init","session_id":"s-1"}\n{"type":"tool_use","tool_name":"replace"}\n');
    expect(reader.sessionId).toBe("s-1");
    expect(reader.progress).toEqual({ turns: 1, last_tool: "replace" });
  });
});
