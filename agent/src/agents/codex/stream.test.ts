import { readFileSync } from "node:fs";
import type { AttemptProgress } from "@whilly/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CodexStream } from "./stream.js";

const FIXTURES = new URL("../../../../test/fixtures/codex/", import.meta.url);
const output = (name: string) => readFileSync(new URL(`${name}.jsonl`, FIXTURES), "utf8");

describe("CodexStream", () => {
  it("reads the thread id, the turns and the last tool as the output arrives", () => {
    const seen: AttemptProgress[] = [];
    const stream = new CodexStream((progress) => seen.push(progress));
    const text = output("happy");
    const [first = "", ...rest] = text.split("\n");
    stream.push(first.slice(0, 20));
    expect(stream.sessionId).toBeUndefined();
    stream.push(`${first.slice(20)}\n`);
    expect(stream.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    stream.push(rest.join("\n"));
    expect(stream.progress).toEqual({ turns: 1, last_tool: "exec_command" });
    expect(seen).toEqual([{ turns: 1 }, { turns: 1, last_tool: "exec_command" }]);
    expect(stream.limitResetsAt).toBeUndefined();
  });

  it("gives the same progress however the output is cut into chunks", () => {
    const text = output("talk-then-work");
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 8 }), (cuts) => {
        const stream = new CodexStream();
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          stream.push(text.slice(at, cut));
          at = cut;
        }
        stream.push(text.slice(at));
        expect(stream.progress).toEqual({ turns: 1, last_tool: "exec_command" });
      }),
      { numRuns: 50 },
    );
  });

  it("names file changes, MCP tools and web searches as tools", () => {
    const stream = new CodexStream();
    const item = (fields: string) => `{"type":"item.started","item":{"id":"i",${fields}}}\n`;
    stream.push(item('"type":"file_change","changes":[]'));
    expect(stream.progress.last_tool).toBe("apply_patch");
    stream.push(item('"type":"mcp_tool_call","server":"docs","tool":"search"'));
    expect(stream.progress.last_tool).toBe("docs.search");
    stream.push(item('"type":"web_search","query":"x"'));
    expect(stream.progress.last_tool).toBe("web_search");
    stream.push(item('"type":"agent_message","text":"hi"'));
    expect(stream.progress.last_tool).toBe("web_search");
  });

  it("reads when a usage limit resets", () => {
    const stream = new CodexStream(undefined, () => new Date("2026-12-02T16:41:19Z"));
    stream.push(output("usage-limit"));
    expect(stream.limitResetsAt).toEqual(new Date("2026-12-02T17:41:00Z"));
  });

  it("skips what is not an event, and a callback that throws", () => {
    const stream = new CodexStream(() => {
      throw new Error("the caller's bug");
    });
    stream.push('banner\n[1]\n{"type":42}\n{broken\n{"type":"turn.started"}\n');
    expect(stream.progress).toEqual({ turns: 1 });
  });
});
