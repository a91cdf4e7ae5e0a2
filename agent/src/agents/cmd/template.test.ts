import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseCmdTemplate, substituteCmd } from "./template.js";

const values = {
  prompt: "the prompt",
  prompt_file: "/tmp/p/prompt.md",
  model: "m-1",
  workdir: "/work/tree",
  task_id: "T-1",
};

const argv = (template: string, over: Partial<typeof values> = {}) =>
  substituteCmd(parseCmdTemplate(template), { ...values, ...over });

describe("parseCmdTemplate and substituteCmd", () => {
  it("splits words on blanks and fills every placeholder in", () => {
    expect(
      argv("my-agent --prompt-file {prompt_file} --model {model}  -C {workdir} --id={task_id} {prompt}"),
    ).toEqual([
      "my-agent",
      "--prompt-file",
      "/tmp/p/prompt.md",
      "--model",
      "m-1",
      "-C",
      "/work/tree",
      "--id=T-1",
      "the prompt",
    ]);
  });

  it("reads quotes and backslashes as a shell would, without expanding anything", () => {
    expect(argv(`a 'b c' "d \\"e\\" \\n" f\\ g '' "$HOME" ~ *`)).toEqual([
      "a",
      "b c",
      'd "e" \\n',
      "f g",
      "",
      "$HOME",
      "~",
      "*",
    ]);
  });

  it("keeps a placeholder inside its word, quoted or not", () => {
    expect(argv(`run '--msg={prompt}' x{task_id}y`)).toEqual(["run", "--msg=the prompt", "xT-1y"]);
  });

  it("keeps a hostile prompt one argument: quotes, $(...), ; and newlines never split or run", () => {
    const prompt = `it's "quoted" $(rm -rf /) \`id\`; echo pwned && exit 1 | cat\nsecond line '`;
    const out = argv("agent --prompt {prompt} --end", { prompt });
    expect(out).toEqual(["agent", "--prompt", prompt, "--end"]);
    expect(argv("agent {prompt}", { prompt: "" })).toEqual(["agent", ""]);
  });

  it("leaves braces that are not placeholders as text", () => {
    expect(argv(`agent --json '{"a": 1}' {} {Model}`)).toEqual([
      "agent",
      "--json",
      '{"a": 1}',
      "{}",
      "{Model}",
    ]);
  });

  it.each([
    ["agent --model {modle}", /unknown placeholder \{modle\}/],
    ["agent 'open", /quote ' is not closed/],
    ['agent "open', /quote " is not closed/],
    ["agent \\", /ends with a backslash/],
    ["   ", /is empty/],
    ["'' --flag", /program/],
  ])("refuses %j with a ConfigurationError naming the flag and the fix", (template, problem) => {
    let error: unknown;
    try {
      parseCmdTemplate(template, "--agent-cmd");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/^--agent-cmd: /);
    expect((error as Error).message).toMatch(problem);
    expect((error as ConfigurationError).hint).toContain("--agent-cmd '");
  });
});
