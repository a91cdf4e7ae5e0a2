import { describe, expect, it } from "vitest";
import type { AgentInvocation } from "../types.js";
import { createGeminiAdapter, DEFAULT_GEMINI_MODEL, geminiArgv } from "./index.js";

const task: AgentInvocation = {
  prompt: "--help is not a flag here\nTask id: T-1",
  promptFile: "/tmp/prompt.md",
  model: "gemini-2.5-flash",
  cwd: "/work/tree",
  taskId: "T-1",
  mode: "task",
};

describe("createGeminiAdapter", () => {
  it("takes its program and default model from the environment", () => {
    const plain = createGeminiAdapter({});
    expect([plain.name, plain.bin, plain.binVariable, plain.defaultModel]).toEqual([
      "gemini",
      "gemini",
      "GEMINI_BIN",
      DEFAULT_GEMINI_MODEL,
    ]);
    const set = createGeminiAdapter({
      GEMINI_BIN: "/opt/gemini/bin/gemini",
      WHILLY_GEMINI_MODEL: "gemini-3-pro-preview",
    });
    expect([set.bin, set.defaultModel]).toEqual(["/opt/gemini/bin/gemini", "gemini-3-pro-preview"]);
    expect(set.versionArgv()).toEqual(["/opt/gemini/bin/gemini", "--version"]);
    expect(createGeminiAdapter({ GEMINI_BIN: " ", WHILLY_GEMINI_MODEL: "" }).defaultModel).toBe(
      DEFAULT_GEMINI_MODEL,
    );
    expect([plain.resumes, plain.answers, plain.successRule]).toEqual([true, true, "completion-marker"]);
    expect(plain.unavailableHints.auth).toMatch(/GEMINI_API_KEY/);
    expect(plain.unavailableHints.install).toMatch(/npm install -g @google\/gemini-cli.*GEMINI_BIN/);
  });

  it("runs a task headless with every tool approved, the prompt one argument that cannot pass for a flag", () => {
    expect(geminiArgv("gemini", task)).toEqual([
      "gemini",
      "--output-format",
      "stream-json",
      "--model",
      "gemini-2.5-flash",
      "--skip-trust",
      "--approval-mode",
      "yolo",
      `--prompt=${task.prompt}`,
    ]);
    const resumed = geminiArgv("gemini", { ...task, resumeSessionId: "0f2c-session" });
    expect(resumed.slice(-3)).toEqual(["--resume", "0f2c-session", `--prompt=${task.prompt}`]);
  });

  it("answers with the read-only approval mode, no resume, and only the model's environment", () => {
    const adapter = createGeminiAdapter({});
    const answer: AgentInvocation = { ...task, mode: "answer", resumeSessionId: "s" };
    const argv = adapter.argv(answer);
    expect(argv).toContain("default");
    expect(argv).not.toContain("yolo");
    expect(argv).not.toContain("--resume");
    const base = {
      PATH: "/bin",
      HOME: "/home/u",
      GEMINI_API_KEY: "k",
      GOOGLE_CLOUD_PROJECT: "p",
      HTTPS_PROXY: "http://proxy:3128",
      DATABASE_URL: "postgres://secret",
      AWS_SECRET_ACCESS_KEY: "x",
    };
    expect(adapter.env(base, answer)).toEqual({
      PATH: "/bin",
      HOME: "/home/u",
      GEMINI_API_KEY: "k",
      GOOGLE_CLOUD_PROJECT: "p",
      HTTPS_PROXY: "http://proxy:3128",
      GEMINI_CLI_NO_RELAUNCH: "true",
    });
    const taskEnv = adapter.env(base, task);
    expect(taskEnv).toEqual({ ...base, GEMINI_CLI_NO_RELAUNCH: "true" });
    expect(base).not.toHaveProperty("GEMINI_CLI_NO_RELAUNCH");
    expect(adapter.env({ ...base, GEMINI_CLI_NO_RELAUNCH: "" }, task).GEMINI_CLI_NO_RELAUNCH).toBe("");
  });

  it("builds a fresh stream reader per run and folds results with its price table", () => {
    const adapter = createGeminiAdapter({});
    expect(adapter.stream(() => {})).not.toBe(adapter.stream(() => {}));
    expect(adapter.result({ stdout: "", stderr: "", exitCode: 0 })).toBeUndefined();
  });
});
