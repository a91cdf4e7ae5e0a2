import { describe, expect, it } from "vitest";
import { classifyAgentRun } from "./classify.js";
import { streamTranscript } from "./stream-text.js";

const line = (event: unknown) => JSON.stringify(event);
const STREAM = [
  line({ type: "system", subtype: "init", session_id: "s-1", tools: ["Bash"] }),
  line({
    type: "assistant",
    message: { id: "m1", content: [{ type: "text", text: "Let me run the tests." }] },
  }),
  line({
    type: "assistant",
    message: { id: "m1", content: [{ type: "tool_use", name: "Bash", input: { command: "npm test" } }] },
  }),
  line({ type: "user", message: { content: [{ type: "tool_result", content: "1 failing" }] } }),
  line({ type: "system", subtype: "api_retry", attempt: 1, error_status: 529 }),
  "a stray line",
].join("\n");

describe("streamTranscript", () => {
  it("renders text, tool calls, tool results and API retries, and keeps other lines", () => {
    expect(streamTranscript(STREAM)).toBe(
      [
        "Let me run the tests.",
        '[tool Bash] {"command":"npm test"}',
        "[result] 1 failing",
        "[api retry 1: 529]",
        "a stray line",
      ].join("\n"),
    );
  });

  it("is undefined for output that holds no stream event", () => {
    expect(streamTranscript('banner\n{"type":"other"}\n{not json')).toBeUndefined();
  });

  it("shortens long pieces and reads only the end of huge output", () => {
    const long = line({
      type: "user",
      message: { content: [{ type: "tool_result", content: "x".repeat(5000) }] },
    });
    const text = streamTranscript(`${"noise\n".repeat(100_000)}${long}`) ?? "";
    expect(text.endsWith("…")).toBe(true);
    expect(text.length).toBeLessThan(300 * 1024);
  });

  it("is the output tail of a stalled run, so the retry learns what the agent was doing", () => {
    const outcome = classifyAgentRun({
      exitCode: null,
      signal: "SIGKILL",
      stdout: STREAM,
      stderr: "",
      timedOut: false,
      stalled: true,
    });
    expect(outcome).toMatchObject({ ok: false, reason: "stalled", sessionId: null });
    expect(outcome.outputTail).toContain('[tool Bash] {"command":"npm test"}');
    expect(outcome.outputTail).not.toContain('"type"');
  });

  it("names the stall timeout the runner used and what usually needs a larger one", () => {
    const report = {
      exitCode: null,
      signal: "SIGKILL",
      stdout: STREAM,
      stderr: "",
      timedOut: false,
      stalled: true,
    };
    expect(classifyAgentRun({ ...report, stallTimeoutMs: 600_000 }).message).toBe(
      "no output from the agent for 10m (--stall-timeout), so it was killed; a tool call that runs longer " +
        "without printing (a long test suite) needs a larger --stall-timeout",
    );
    expect(classifyAgentRun({ ...report, stallTimeoutMs: 5_400_000 }).message).toContain("for 1h30m (");
    expect(classifyAgentRun({ ...report, stallTimeoutMs: 1500 }).message).toContain("for 1500ms (");
  });
});
