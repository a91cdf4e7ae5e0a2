import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, KNOWN_AGENTS } from "./registry.js";
import { parseAgentSettings } from "./settings.js";
import { parseAgentFlags } from "./setup.js";

const env = { PATH: "/usr/bin:/bin" };

function thrown(fn: () => unknown): ConfigurationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error("did not throw");
}

describe("the adapter registry", () => {
  it("builds Claude Code, Codex and Gemini CLI always and the generic command only with a template", () => {
    const bare = createAgentRegistry(parseAgentSettings(env, { cwd: "/w" }));
    expect(bare.adapters.map((a) => a.name)).toEqual(["claude", "codex", "gemini"]);
    const withCmd = createAgentRegistry(
      parseAgentSettings({ ...env, WHILLY_AGENT_CMD: "./agent {prompt_file}" }, { cwd: "/w" }),
    );
    expect(withCmd.adapters.map((a) => a.name)).toEqual(["claude", "codex", "gemini", "cmd"]);
    expect(withCmd.get("cmd").bin).toBe("/w/agent");
    expect(KNOWN_AGENTS).toEqual(expect.arrayContaining(["claude", "cmd"]));
  });

  it("refuses an unknown agent, listing the known ones", () => {
    const registry = createAgentRegistry(parseAgentSettings(env, { cwd: "/w" }));
    const error = thrown(() => registry.get("clade", "--agent"));
    expect(error.message).toBe("--agent: no agent named 'clade'");
    expect(error.hint).toContain(KNOWN_AGENTS.join(", "));
  });

  it("says the cmd agent needs --agent-cmd when none was given", () => {
    const error = thrown(() => parseAgentFlags({ agent: "cmd" }, env, "/w"));
    expect(error.message).toBe("--agent cmd needs the command to run");
    expect(error.hint).toContain("--agent-cmd");
  });

  it("lets --agent-cmd win over WHILLY_AGENT_CMD, and names the one that is wrong", () => {
    const setup = parseAgentFlags(
      { agent: "cmd", agentCmd: "flag-agent {prompt}" },
      { ...env, WHILLY_AGENT_CMD: "env-agent {bad}" },
      "/w",
    );
    expect(setup.registry.get("cmd").bin).toBe("flag-agent");
    expect(
      thrown(() => parseAgentFlags({}, { ...env, WHILLY_AGENT_CMD: "env-agent {bad}" }, "/w")).message,
    ).toBe("WHILLY_AGENT_CMD: unknown placeholder {bad}");
    expect(thrown(() => parseAgentFlags({ agentCmd: "a 'b" }, env, "/w")).message).toMatch(/^--agent-cmd: /);
  });

  it("checks models, tags and agent names, and takes --force-agent as the default agent", () => {
    expect(thrown(() => parseAgentFlags({ model: "two words" }, env, "/w")).message).toMatch(
      /^--model 'two words'/,
    );
    expect(thrown(() => parseAgentFlags({ tags: "gpu,Mac OS" }, env, "/w")).message).toMatch(/^--tags 'Mac'/);
    expect(thrown(() => parseAgentFlags({ forceAgent: "Codex!" }, env, "/w")).message).toMatch(
      /^--force-agent/,
    );
    const setup = parseAgentFlags(
      { agent: "claude", forceAgent: "claude", tags: "gpu, macos gpu" },
      env,
      "/w",
    );
    expect(setup).toMatchObject({ defaultAgent: "claude", explicit: true, tags: ["gpu", "macos"] });
    expect(parseAgentFlags({}, env, "/w")).toMatchObject({
      defaultAgent: "claude",
      explicit: false,
      tags: [],
    });
  });

  it("reads the start check's timeout from WHILLY_AGENT_PROBE_TIMEOUT", () => {
    expect(parseAgentSettings(env, { cwd: "/w" }).probeTimeoutMs).toBe(10_000);
    expect(
      parseAgentSettings({ ...env, WHILLY_AGENT_PROBE_TIMEOUT: "3s" }, { cwd: "/w" }).probeTimeoutMs,
    ).toBe(3000);
    expect(
      thrown(() => parseAgentSettings({ WHILLY_AGENT_PROBE_TIMEOUT: "soon" }, { cwd: "/w" })).message,
    ).toContain("WHILLY_AGENT_PROBE_TIMEOUT");
  });
});
