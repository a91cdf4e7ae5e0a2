import { ConfigurationError, InvalidInput } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseWorkerArgs } from "./args.js";
import { parseWorkerSettings } from "./settings.js";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-1" })}.sig`;
const required = ["--connect", "http://cp:8000", "--token", token, "--plan", "demo"];

function parse(argv: string[], env: Record<string, string> = {}) {
  return parseWorkerSettings(parseWorkerArgs([...required, ...argv]), env, "/home/w");
}

function problem(argv: string[]): Error {
  try {
    parse(argv);
  } catch (error) {
    if (error instanceof ConfigurationError || error instanceof InvalidInput) return error;
    throw error;
  }
  throw new Error("expected the flags to be refused");
}

describe("whilly-worker's attempt flags", () => {
  it("default as whilly run's do: plan's setup and verify, 10m checks, 10m stall, no push, origin", () => {
    expect(parse([])).toMatchObject({
      setup: undefined,
      verify: undefined,
      verifyTimeoutMs: 600_000,
      stallTimeoutMs: 600_000,
      taskTimeoutMs: 1_800_000,
      push: false,
      remote: "origin",
    });
  });

  it("takes --setup, every --verify in order, the timeouts, --push and --remote", () => {
    const argv = ["--setup", "npm ci", "--verify", "npm test", "--verify=npm run lint", "--push"];
    argv.push("--verify-timeout", "90s", "--stall-timeout", "5m", "--remote", "upstream");
    expect(parse(argv)).toMatchObject({
      setup: "npm ci",
      verify: ["npm test", "npm run lint"],
      verifyTimeoutMs: 90_000,
      stallTimeoutMs: 300_000,
      push: true,
      remote: "upstream",
    });
  });

  it("names the flag of a blank command, a bad duration or a remote git would take for an option", () => {
    expect(problem(["--verify", "npm test", "--verify", " "]).message).toBe("--verify is empty");
    expect(problem(["--setup="])).toMatchObject({
      message: "--setup is empty",
      hint: "give a command, e.g. --setup 'npm ci', or drop --setup",
    });
    expect(problem(["--verify-timeout", "soon"]).message).toMatch(/^--verify-timeout must be a duration/);
    expect(problem(["--stall-timeout", "-5"]).message).toMatch(/^--stall-timeout /);
    expect(problem(["--remote=--upload-pack=evil"])).toMatchObject({
      message: "--remote '--upload-pack=evil' is not a git remote's name",
    });
    expect(problem(["--push=yes"]).message).toMatch(/--push/);
  });

  it("gives git the worker's git credentials and keeps them and whilly's from the agent", () => {
    const env = {
      PATH: "/bin",
      WHILLY_WORKER_TOKEN: token,
      SSH_AUTH_SOCK: "/tmp/agent.sock",
      GIT_ASKPASS: "/bin/askpass",
      GITHUB_TOKEN: "ghp_x",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: "Authorization: Bearer x",
      GIT_TERMINAL_PROMPT: "0",
    };
    const s = parseWorkerSettings(parseWorkerArgs(["--connect", "http://cp", "--plan", "p"]), env, "/w");
    expect(s.agentEnv).toEqual({ PATH: "/bin", GIT_TERMINAL_PROMPT: "0" });
    const { WHILLY_WORKER_TOKEN: _token, ...forGit } = env;
    expect(s.gitEnv).toEqual(forGit);
  });
});
