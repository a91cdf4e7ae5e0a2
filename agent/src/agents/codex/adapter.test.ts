import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import type { AgentInvocation } from "../types.js";
import { createCodexAdapter } from "./adapter.js";
import { codexCost, loadCodexPrices, priceOf } from "./prices.js";

const task: AgentInvocation = {
  prompt: "Task id: T-1\n--help; rm -rf / `x` $(y)",
  promptFile: "/tmp/prompt.md",
  model: "gpt-5.1-codex",
  cwd: "/work/tree",
  taskId: "T-1",
  mode: "task",
};

describe("createCodexAdapter", () => {
  it("runs `codex exec --json` in a fresh thread, the prompt one argv element after --", () => {
    const adapter = createCodexAdapter({});
    expect(adapter).toMatchObject({ name: "codex", bin: "codex", binVariable: "CODEX_BIN", answers: true });
    expect(adapter.defaultModel).toBe("gpt-5-codex");
    expect(adapter.argv(task)).toEqual([
      "codex",
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-c",
      "features.memories=false",
      "-C",
      "/work/tree",
      "-m",
      "gpt-5.1-codex",
      "--",
      task.prompt,
    ]);
    expect(adapter.argv(task)).not.toContain("--last");
    expect(adapter.versionArgv()).toEqual(["codex", "--version"]);
    expect(adapter.successRule).toBe("completion-marker");
  });

  it("takes its program from CODEX_BIN and its default model from WHILLY_CODEX_MODEL", () => {
    const adapter = createCodexAdapter({
      CODEX_BIN: " /opt/codex/bin/codex ",
      WHILLY_CODEX_MODEL: "o4-mini",
    });
    expect(adapter.bin).toBe("/opt/codex/bin/codex");
    expect(adapter.defaultModel).toBe("o4-mini");
    expect(adapter.argv(task)[0]).toBe("/opt/codex/bin/codex");
    expect(createCodexAdapter({ CODEX_BIN: "", WHILLY_CODEX_MODEL: " " })).toMatchObject({
      bin: "codex",
      defaultModel: "gpt-5-codex",
    });
  });

  it("refuses a WHILLY_CODEX_MODEL that is no model name, naming the variable", () => {
    expect(() => createCodexAdapter({ WHILLY_CODEX_MODEL: "gpt 5" })).toThrow(ConfigurationError);
    expect(() => createCodexAdapter({ WHILLY_CODEX_MODEL: "gpt 5" })).toThrow(/WHILLY_CODEX_MODEL/);
  });

  it("an answer runs without the shell, read-only and ephemeral", () => {
    const argv = createCodexAdapter({}).argv({ ...task, mode: "answer" });
    expect(argv).toEqual(expect.arrayContaining(["--ephemeral", "read-only", "features.shell_tool=false"]));
    expect(argv).not.toContain("--dangerously-bypass-approvals-and-sandbox");
    expect(argv.slice(-2)).toEqual(["--", task.prompt]);
  });

  it("resumes only when asked to: `codex exec resume <id> <prompt>`", () => {
    const resuming = { ...task, resumeSessionId: "01a2379b-58b0-7511-a6c0-0298bc46a173" };
    expect(createCodexAdapter({}).resumes).toBe(false);
    expect(createCodexAdapter({}).argv(resuming)).not.toContain("resume");
    const adapter = createCodexAdapter({}, { resumes: true });
    expect(adapter.resumes).toBe(true);
    const argv = adapter.argv(resuming);
    expect(argv.slice(0, 3)).toEqual(["codex", "exec", "resume"]);
    expect(argv.slice(-3)).toEqual(["--", resuming.resumeSessionId, task.prompt]);
  });

  it("leaves the environment as it is (the user's CODEX_HOME and login) and never changes the input", () => {
    const base = Object.freeze({ PATH: "/bin", CODEX_HOME: "/home/u/.codex", OPENAI_API_KEY: "sk-x" });
    const env = createCodexAdapter({}).env(base, task);
    expect(env).toEqual(base);
    expect(env).not.toBe(base);
  });

  it("prices the run by the invocation's model, else its default", () => {
    const adapter = createCodexAdapter({ WHILLY_CODEX_MODEL: "gpt-5-mini" });
    const stdout =
      '{"type":"turn.started"}\n{"type":"turn.completed","usage":{"input_tokens":1000000,"cached_input_tokens":0,"output_tokens":0}}\n';
    expect(adapter.result({ stdout, stderr: "", exitCode: 0 })?.total_cost_usd).toBe(0.25);
    expect(adapter.result({ stdout, stderr: "", exitCode: 0 }, task)?.total_cost_usd).toBe(1.25);
  });
});

describe("the Codex price table", () => {
  const file = (text: string) => () => text;

  it("costs uncached input, cached input and output (reasoning is part of output), USD", () => {
    const table = loadCodexPrices({});
    expect(codexCost({ input: 2_000_000, cached: 1_000_000, output: 100_000 }, "gpt-5-codex", table)).toEqual(
      {
        usd: 1.25 + 0.125 + 1,
      },
    );
  });

  it("finds a model in any case and without its snapshot date", () => {
    const table = loadCodexPrices({});
    expect(priceOf(table, "GPT-5-Codex")).toEqual(priceOf(table, "gpt-5-codex"));
    expect(priceOf(table, "gpt-5-mini-2025-08-07")?.input).toBe(0.25);
  });

  it("an unknown model costs 0, with a note naming the variable to add it", () => {
    const cost = codexCost({ input: 10, cached: 0, output: 10 }, "my-local-model", loadCodexPrices({}));
    expect(cost.usd).toBe(0);
    expect(cost.note).toMatch(/no price for the Codex model 'my-local-model'.*WHILLY_CODEX_PRICES/);
  });

  it("WHILLY_CODEX_PRICES adds models and replaces built-in prices; a missing cached price is the input price", () => {
    const table = loadCodexPrices(
      { WHILLY_CODEX_PRICES: "/etc/prices.json" },
      file(
        '{"models": {"my-local-model": {"input": 1, "output": 2}, "gpt-5-codex": {"input": 9, "output": 9}}}',
      ),
    );
    expect(priceOf(table, "my-local-model")).toEqual({ input: 1, cached_input: 1, output: 2 });
    expect(priceOf(table, "gpt-5-codex")?.input).toBe(9);
    expect(priceOf(table, "o3")?.input).toBe(2);
  });

  it.each([
    ["not JSON", "{", /WHILLY_CODEX_PRICES \(\/p\.json\) is not JSON/],
    ["no models", "{}", /WHILLY_CODEX_PRICES \(\/p\.json\) is not a Codex price table at models/],
    ["a negative price", '{"models": {"m": {"input": -1, "output": 1}}}', /at models\.m\.input/],
    ["an unknown key", '{"models": {"m": {"input": 1, "output": 1, "outptu": 2}}}', /at models\.m/],
  ])("refuses a price file with %s, naming the variable", (_name, text, message) => {
    const load = () => loadCodexPrices({ WHILLY_CODEX_PRICES: "/p.json" }, file(text));
    expect(load).toThrow(ConfigurationError);
    expect(load).toThrow(message);
  });

  it("refuses a price file that cannot be read", () => {
    const load = () => createCodexAdapter({ WHILLY_CODEX_PRICES: "/no/such/prices.json" });
    expect(load).toThrow(/WHILLY_CODEX_PRICES \(\/no\/such\/prices\.json\) cannot be read/);
  });
});
