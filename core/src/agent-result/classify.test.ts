import { describe, expect, it } from "vitest";
import { allSecretsText, leakedSecrets, SAMPLE_SECRETS } from "../../../test/fixtures/secret-samples.js";
import { USD_CASES } from "../money-cases.js";
import { classifyAgentRun } from "./classify.js";
import { agentOutcomeDetail } from "./detail.js";
import type { AgentRunReport } from "./outcome.js";

const MARKER = "<promise>COMPLETE</promise>";

/** A result object shaped like Claude Code 2.1.x prints it (keys taken from claude-code-offline.md). */
function resultJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 229,
    duration_api_ms: 63,
    num_turns: 3,
    result: `hello.txt is written and verified. ${MARKER}`,
    stop_reason: "end_turn",
    session_id: "35af1fa5-0000-4000-8000-000000000001",
    total_cost_usd: 0.059272,
    usage: {
      input_tokens: 14008,
      output_tokens: 162,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 7,
    },
    permission_denials: [],
    terminal_reason: "completed",
    api_error_status: null,
    uuid: "ecbdf15a-0000-4000-8000-000000000002",
    ...overrides,
  };
}

function run(overrides: Partial<AgentRunReport> = {}): AgentRunReport {
  return {
    exitCode: 0,
    signal: null,
    stdout: `${JSON.stringify(resultJson())}\n`,
    stderr: "",
    timedOut: false,
    ...overrides,
  };
}

describe("classifyAgentRun: success", () => {
  it("accepts the measured happy path and reads cost, turns, duration, session and usage", () => {
    const outcome = classifyAgentRun(run());
    expect(outcome.ok).toBe(true);
    expect(outcome.reason).toBeUndefined();
    expect(outcome.costMicroUsd).toBe(59_272);
    expect(outcome.numTurns).toBe(3);
    expect(outcome.durationMs).toBe(229);
    expect(outcome.sessionId).toBe("35af1fa5-0000-4000-8000-000000000001");
    expect(outcome.subtype).toBe("success");
    expect(outcome.usage).toEqual({
      inputTokens: 14008,
      outputTokens: 162,
      cacheReadTokens: 5,
      cacheCreationTokens: 7,
    });
    expect(outcome.resultText).toBe(`hello.txt is written and verified. ${MARKER}`);
    expect(outcome.outputTail).toContain(MARKER);
  });

  it("accepts the marker followed by trailing whitespace", () => {
    const stdout = JSON.stringify(resultJson({ result: `Done.\n\n${MARKER}\n  \n` }));
    expect(classifyAgentRun(run({ stdout })).ok).toBe(true);
  });

  it("finds the JSON after banners and debug lines", () => {
    const stdout = [
      "Now using node v20.20.2 (npm v11.19.1)",
      "[ANTHROPIC_LOG] debug: POST /v1/messages {",
      JSON.stringify(resultJson()),
      "",
    ].join("\n");
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.ok).toBe(true);
    expect(outcome.costMicroUsd).toBe(59_272);
  });

  it("finds pretty-printed JSON after noise", () => {
    const stdout = `status-line helper v1\n${JSON.stringify(resultJson(), null, 2)}\n`;
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.ok).toBe(true);
    expect(outcome.sessionId).toBe("35af1fa5-0000-4000-8000-000000000001");
  });

  it("takes the last result element of a --verbose JSON array", () => {
    const stdout = JSON.stringify([
      { type: "system", subtype: "init", session_id: "s" },
      { type: "assistant", message: { content: [{ type: "text", text: `I will print ${MARKER}` }] } },
      resultJson({ result: `first ${MARKER}`, total_cost_usd: 0.1 }),
      { type: "user", message: {} },
      resultJson({ result: `final ${MARKER}`, total_cost_usd: 0.2 }),
    ]);
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.ok).toBe(true);
    expect(outcome.resultText).toBe(`final ${MARKER}`);
    expect(outcome.costMicroUsd).toBe(200_000);
  });

  it("takes the last result line of JSON Lines output", () => {
    const stdout = [
      JSON.stringify({ type: "system", subtype: "init", session_id: "s" }),
      JSON.stringify({ type: "assistant", message: {} }),
      JSON.stringify(resultJson({ result: `line ${MARKER}` })),
      "",
    ].join("\n");
    expect(classifyAgentRun(run({ stdout })).resultText).toBe(`line ${MARKER}`);
  });

  it("reads output of more than 64 KiB to its end", () => {
    const noise = `${"x".repeat(199)}\n`.repeat(500);
    const outcome = classifyAgentRun(run({ stdout: `${noise}${JSON.stringify(resultJson())}\n` }));
    expect(outcome.ok).toBe(true);
  });
});

describe("classifyAgentRun: failures", () => {
  it("agent_unavailable (install): the binary is missing; nothing is parsed", () => {
    const outcome = classifyAgentRun(
      run({
        exitCode: null,
        stdout: "",
        spawnError: { code: "ENOENT", message: "spawn /nope/claude ENOENT" },
      }),
    );
    expect(outcome).toMatchObject({
      ok: false,
      reason: "agent_unavailable",
      unavailable: "install",
      costMicroUsd: 0,
    });
    expect(outcome.message).toContain("ENOENT");
    expect(outcome.outputTail).toContain("ENOENT");
  });

  it("spawn_failed: a start that failed for another reason than a missing or unexecutable binary", () => {
    const outcome = classifyAgentRun(
      run({ exitCode: null, stdout: "", spawnError: { code: "EMFILE", message: "spawn claude EMFILE" } }),
    );
    expect(outcome).toMatchObject({ ok: false, reason: "spawn_failed" });
    expect(outcome.unavailable).toBeUndefined();
  });

  it("timeout: nothing printed after the kill", () => {
    const outcome = classifyAgentRun(run({ exitCode: null, signal: "SIGTERM", stdout: "", timedOut: true }));
    expect(outcome).toMatchObject({ ok: false, reason: "timeout", sessionId: null, costMicroUsd: 0 });
  });

  it("timeout wins over a result printed before the kill, and keeps its cost", () => {
    const outcome = classifyAgentRun(run({ exitCode: null, signal: "SIGKILL", timedOut: true }));
    expect(outcome.reason).toBe("timeout");
    expect(outcome.costMicroUsd).toBe(59_272);
  });

  it("aborted: the worker is shutting down", () => {
    const outcome = classifyAgentRun(run({ exitCode: null, signal: "SIGTERM", stdout: "", aborted: true }));
    expect(outcome.reason).toBe("aborted");
  });

  it("killed: a signal from outside and nothing printed", () => {
    const outcome = classifyAgentRun(run({ exitCode: null, signal: "SIGKILL", stdout: "" }));
    expect(outcome.reason).toBe("killed");
    expect(outcome.message).toContain("SIGKILL");
  });

  it("nonzero_exit without JSON carries stderr (the root refusal)", () => {
    const stderr =
      "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n";
    const outcome = classifyAgentRun(run({ exitCode: 1, stdout: "", stderr }));
    expect(outcome.reason).toBe("nonzero_exit");
    expect(outcome.message).toContain("root/sudo");
    expect(outcome.outputTail).toContain("root/sudo");
  });

  it("no_output: exit 0 with nothing on stdout", () => {
    expect(classifyAgentRun(run({ stdout: "" })).reason).toBe("no_output");
    expect(classifyAgentRun(run({ stdout: "  \n\n" })).reason).toBe("no_output");
  });

  it("parse_error: output that holds no result object, kept in the tail", () => {
    const stdout = `Error: something odd\n{"type":"assistant","message":{}}\n{not json`;
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.reason).toBe("parse_error");
    expect(outcome.ok).toBe(false);
    expect(outcome.outputTail).toContain("something odd");
  });

  it("parse_error even when the raw text ends with the marker", () => {
    const outcome = classifyAgentRun(run({ stdout: `All done. ${MARKER}\n` }));
    expect(outcome.reason).toBe("parse_error");
  });

  it("parse_error: a truncated JSON object", () => {
    const full = JSON.stringify(resultJson());
    expect(classifyAgentRun(run({ stdout: full.slice(0, full.length - 10) })).reason).toBe("parse_error");
  });

  it("max_turns: error_max_turns without a result key keeps its cost", () => {
    const json = resultJson({
      subtype: "error_max_turns",
      is_error: true,
      terminal_reason: "max_turns",
      errors: ["Reached maximum number of turns (1)"],
      stop_reason: "tool_use",
      total_cost_usd: 0.012345,
    });
    delete json.result;
    const outcome = classifyAgentRun(run({ exitCode: 1, stdout: JSON.stringify(json) }));
    expect(outcome).toMatchObject({ ok: false, reason: "max_turns", resultText: null, costMicroUsd: 12_345 });
    expect(outcome.errors).toEqual(["Reached maximum number of turns (1)"]);
    expect(outcome.message).toContain("Reached maximum number of turns (1)");
  });

  it("max_turns: is_error with an empty result and empty errors", () => {
    const stdout = JSON.stringify(
      resultJson({ subtype: "error_max_turns", is_error: true, result: "", errors: [] }),
    );
    expect(classifyAgentRun(run({ exitCode: 1, stdout })).reason).toBe("max_turns");
  });

  it("max_budget: error_max_budget_usd with result null", () => {
    const stdout = JSON.stringify(
      resultJson({
        subtype: "error_max_budget_usd",
        is_error: true,
        result: null,
        errors: ["Reached maximum budget ($0.01)"],
        total_cost_usd: 0.0101,
      }),
    );
    const outcome = classifyAgentRun(run({ exitCode: 1, stdout }));
    expect(outcome).toMatchObject({ reason: "max_budget", resultText: null, costMicroUsd: 10_100 });
  });

  it("error_subtype: error_during_execution with is_error false and exit 0", () => {
    const stdout = JSON.stringify(
      resultJson({
        subtype: "error_during_execution",
        is_error: false,
        result: `oops ${MARKER}`,
        errors: ["Tool execution failed"],
      }),
    );
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.reason).toBe("error_subtype");
    expect(outcome.message).toContain("error_during_execution");
    expect(outcome.outputTail).toContain("Tool execution failed");
  });

  it("is_error: an API error keeps subtype success (HTTP 500, exit 1)", () => {
    const stdout = JSON.stringify(
      resultJson({
        is_error: true,
        result: "API Error: 500 fake injected HTTP 500. This is a server-side issue, usually temporary",
        api_error_status: 500,
        terminal_reason: "api_error",
        total_cost_usd: 0,
      }),
    );
    const outcome = classifyAgentRun(run({ exitCode: 1, stdout }));
    expect(outcome).toMatchObject({ ok: false, reason: "is_error", subtype: "success", exitCode: 1 });
    expect(outcome.message).toContain("API Error: 500");
  });

  it("is_error: true with exit 0, even with the marker", () => {
    const stdout = JSON.stringify(resultJson({ is_error: true }));
    expect(classifyAgentRun(run({ stdout })).reason).toBe("is_error");
  });

  it("nonzero_exit: is_error false with exit 1, even with the marker", () => {
    const outcome = classifyAgentRun(run({ exitCode: 1 }));
    expect(outcome.reason).toBe("nonzero_exit");
    expect(outcome.costMicroUsd).toBe(59_272);
  });

  it("permission_denied: a silent denial with exit 0 and subtype success", () => {
    const stdout = JSON.stringify(
      resultJson({
        permission_denials: [
          { tool_name: "Bash", tool_use_id: "toolu_1", tool_input: { command: "python3 -c 1" } },
          { tool_name: "Bash", tool_use_id: "toolu_2", tool_input: { command: "ls" } },
        ],
      }),
    );
    const outcome = classifyAgentRun(run({ stdout }));
    expect(outcome.reason).toBe("permission_denied");
    expect(outcome.permissionDenials).toEqual([
      { toolName: "Bash", toolUseId: "toolu_1" },
      { toolName: "Bash", toolUseId: "toolu_2" },
    ]);
    expect(outcome.message).toBe("the agent was denied permission to use Bash");
  });

  it("empty_result: success with an empty result", () => {
    expect(classifyAgentRun(run({ stdout: JSON.stringify(resultJson({ result: "" })) })).reason).toBe(
      "empty_result",
    );
    expect(classifyAgentRun(run({ stdout: JSON.stringify(resultJson({ result: "  \n" })) })).reason).toBe(
      "empty_result",
    );
  });

  it("no_marker: a final message without the marker", () => {
    const outcome = classifyAgentRun(
      run({ stdout: JSON.stringify(resultJson({ result: "I could not do it." })) }),
    );
    expect(outcome.reason).toBe("no_marker");
    expect(outcome.message).toContain("I could not do it.");
  });

  it("the answer rule (plan generation): any non-empty final text succeeds; every other check still applies", () => {
    const answer = (result: string, extra: Record<string, unknown> = {}) =>
      classifyAgentRun(
        run({ stdout: JSON.stringify(resultJson({ result, ...extra })), resultRule: "answer" }),
      );
    expect(answer('{"project": "P", "tasks": []}')).toMatchObject({
      ok: true,
      message: "the agent answered",
    });
    expect(answer("").reason).toBe("empty_result");
    const denied = [{ tool_name: "Write", tool_use_id: "t1", tool_input: {} }];
    expect(answer("{}", { permission_denials: denied }).reason).toBe("permission_denied");
    expect(answer("{}", { is_error: true }).reason).toBe("is_error");
  });

  it("no_marker: the marker quoted earlier in the final message", () => {
    const result = `I will print ${MARKER} when done, but the tests fail.`;
    expect(classifyAgentRun(run({ stdout: JSON.stringify(resultJson({ result })) })).reason).toBe(
      "no_marker",
    );
  });

  it("no_marker: the marker inside a code block at the end", () => {
    const fenced = `When done I print:\n\`\`\`\n${MARKER}\n\`\`\``;
    const open = `Example:\n\`\`\`text\n${MARKER}`;
    const inline = `The marker is \`${MARKER}\``;
    for (const result of [fenced, open, inline]) {
      expect(classifyAgentRun(run({ stdout: JSON.stringify(resultJson({ result })) })).reason).toBe(
        "no_marker",
      );
    }
  });
});

describe("classifyAgentRun: what it keeps", () => {
  it("never lets an API key or a listed secret into the outcome", () => {
    const key = "sk-ant-api03-abcdefghijklmnop";
    const stdout = JSON.stringify(resultJson({ is_error: true, result: `bad key ${key}` }));
    const outcome = classifyAgentRun(
      run({ stdout, stderr: "token=hunter2-secret-value\n", secrets: ["hunter2-secret-value"] }),
    );
    const everything = JSON.stringify(outcome);
    expect(everything).not.toContain(key);
    expect(everything).not.toContain("hunter2-secret-value");
    expect(outcome.outputTail).toContain("[redacted]");
  });

  it("keeps no secret of any shape, nor a piece of one the tail's cut went through", () => {
    const token = SAMPLE_SECRETS.github ?? "";
    for (const cutAt of [4, 10, token.length - 6]) {
      // The kept tail starts `cutAt` characters into the token and ends with every other shape.
      const after = `\n${allSecretsText()}`;
      const filler = "y".repeat(4096 - (token.length - cutAt) - after.length);
      const stdout = `${"z".repeat(9000)}\n${token}${filler}${after}`;
      const outcome = classifyAgentRun(run({ stdout, stderr: allSecretsText() }));
      const everything = JSON.stringify(outcome);
      expect(outcome.outputTail).toContain("ghs_[redacted]");
      expect(leakedSecrets(everything)).toEqual([]);
      expect(outcome.outputTail).not.toContain(token.slice(cutAt, cutAt + 6));
    }
  });

  it("bounds the output tail to 4 KiB of UTF-8 without splitting characters", () => {
    const result = `${"ж".repeat(5000)}🙂 end`;
    const outcome = classifyAgentRun(run({ stdout: JSON.stringify(resultJson({ result })) }));
    expect(new TextEncoder().encode(outcome.outputTail).length).toBeLessThanOrEqual(4096);
    expect(outcome.outputTail.endsWith("🙂 end")).toBe(true);
    expect(outcome.outputTail).not.toContain("\ufffd");
  });

  it("replaces NUL and lone surrogates so Postgres can store the tail", () => {
    const outcome = classifyAgentRun(run({ stdout: `garbage \u0000 and \ud800 here` }));
    expect(outcome.outputTail).toBe("garbage \ufffd and \ufffd here");
  });

  it("tolerates wrong field types", () => {
    const stdout = JSON.stringify(
      resultJson({ total_cost_usd: "oops", num_turns: "3", duration_ms: -5, usage: null, session_id: 7 }),
    );
    const outcome = classifyAgentRun(run({ stdout, wallMs: 1234.4 }));
    expect(outcome).toMatchObject({
      ok: true,
      costMicroUsd: 0,
      numTurns: 0,
      durationMs: 1234,
      sessionId: null,
    });
  });

  it("reads a result object printed on stderr when stdout is empty", () => {
    const outcome = classifyAgentRun(run({ stdout: "", stderr: JSON.stringify(resultJson()) }));
    expect(outcome.ok).toBe(true);
  });
});

describe("agentOutcomeDetail", () => {
  it("summarises an attempt for the event log", () => {
    const failed = classifyAgentRun(run({ exitCode: 1 }));
    expect(agentOutcomeDetail(failed, 2)).toMatchObject({
      attempt: 2,
      ok: false,
      reason: "nonzero_exit",
      cost_usd: "0.059272",
      num_turns: 3,
      duration_ms: 229,
      session_id: "35af1fa5-0000-4000-8000-000000000001",
      exit_code: 1,
    });
    const ok = agentOutcomeDetail(classifyAgentRun(run()), 1);
    expect(ok).not.toHaveProperty("reason");
    expect(typeof ok.output_tail).toBe("string");
  });
});

describe("the agent's total_cost_usd follows the one amount rule (docs/protocol.md)", () => {
  it.each(USD_CASES)("total_cost_usd $input gives $micro µUSD, 0 when refused", ({ input, micro }) => {
    // JSON text as the CLI would print it: numbers as numbers, strings quoted.
    const stdout = JSON.stringify(resultJson({ total_cost_usd: input }));
    expect(classifyAgentRun(run({ stdout })).costMicroUsd).toBe(micro ?? 0);
  });
});

describe("classifyAgentRun: the agent cannot run on this machine", () => {
  const apiError = (result: string, overrides: Record<string, unknown> = {}) =>
    run({
      exitCode: 1,
      stdout: `${JSON.stringify(resultJson({ is_error: true, result, total_cost_usd: 0, ...overrides }))}\n`,
    });

  it.each([
    ["not logged in", apiError("Not logged in · Please run /login")],
    ["an invalid API key", apiError("Invalid API key · Please run /login")],
    [
      "a 401 from the API",
      apiError("Failed to authenticate. API Error: 401 invalid x-api-key", { api_error_status: 401 }),
    ],
    ["a 401 by status alone", apiError("API Error", { api_error_status: 401 })],
    [
      "an authentication_error body without a result JSON",
      run({ exitCode: 1, stdout: "", stderr: '{"type":"error","error":{"type":"authentication_error"}}' }),
    ],
  ])("auth: %s", (_name, report) => {
    const outcome = classifyAgentRun(report);
    expect(outcome).toMatchObject({ ok: false, reason: "agent_unavailable", unavailable: "auth" });
    expect(outcome.message).toMatch(/^the agent cannot run on this machine: it has no usable credentials/);
    expect(agentOutcomeDetail(outcome)).toMatchObject({ reason: "agent_unavailable", unavailable: "auth" });
  });

  it.each([
    [
      "not executable",
      run({ exitCode: null, stdout: "", spawnError: { code: "EACCES", message: "EACCES" } }),
    ],
    ["a wrapper's command not found (127)", run({ exitCode: 127, stdout: "", stderr: "claude: not found" })],
    [
      "the launcher of a native binary never installed",
      run({ exitCode: 1, stdout: "claude native binary not installed\n", stderr: "" }),
    ],
  ])("install: %s", (_name, report) => {
    expect(classifyAgentRun(report)).toMatchObject({ reason: "agent_unavailable", unavailable: "install" });
  });

  it("a task that fails for its own reasons is not the machine's fault", () => {
    expect(classifyAgentRun(apiError("API Error: 500 overloaded", { api_error_status: 500 })).reason).toBe(
      "is_error",
    );
    expect(classifyAgentRun(run({ exitCode: 1, stdout: "", stderr: "boom" })).reason).toBe("nonzero_exit");
  });

  it("a success whose text mentions a login, and a timeout, are judged as before", () => {
    const text = `Added the "Not logged in · Please run /login" banner. ${MARKER}`;
    const ok = classifyAgentRun(run({ stdout: `${JSON.stringify(resultJson({ result: text }))}\n` }));
    expect(ok.ok).toBe(true);
    const timedOut = classifyAgentRun({ ...apiError("Not logged in · Please run /login"), timedOut: true });
    expect(timedOut.reason).toBe("timeout");
  });
});
