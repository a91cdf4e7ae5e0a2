import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { probeAgents } from "./probe.js";
import { createAgentRegistry } from "./registry.js";
import { parseAgentSettings } from "./settings.js";
import { findWorkingAgents, parseAgentFlags } from "./setup.js";
import type { AgentAdapter } from "./types.js";

const dir = mkdtempSync(join(tmpdir(), "whilly-probe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fake CLI: a shell script with `body`, executable. */
function bin(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** An adapter whose start check runs `path --version`, or only looks `path` up with `lookup`. */
function adapter(name: string, path: string, lookup = false): AgentAdapter {
  const claude = createAgentRegistry(parseAgentSettings({}, { cwd: dir })).get("claude");
  return {
    ...claude,
    name,
    bin: path,
    env: (base) => ({ ...base }),
    versionArgv: () => (lookup ? [] : [path, "--version"]),
  };
}

// Without node_modules/.bin (npm puts it on PATH): the pinned Codex and Gemini CLIs found there would
// be checked and advertised too.
const env = {
  PATH: (process.env.PATH ?? "/usr/bin:/bin")
    .split(":")
    .filter((dir) => !dir.includes("node_modules"))
    .join(":"),
};

describe("probeAgents with real child processes", () => {
  it("keeps the agents that answer, and says why each other one is left out", async () => {
    const pidFile = join(dir, "hang.pid");
    const ok = bin("ok", 'echo "ok 1.0"');
    const fails = bin("fails", 'echo "not logged in" >&2; exit 3');
    // A hung CLI that started a child holding its stdout: both are ended at the timeout.
    const hangs = bin("hangs", `sleep 30 & echo $! > ${pidFile}; wait`);
    const started = performance.now();
    const found = await probeAgents(
      [
        adapter("a-ok", ok),
        adapter("b-fails", fails),
        adapter("c-hangs", hangs),
        adapter("d-missing", join(dir, "nowhere")),
        adapter("e-lookup", ok, true),
        adapter("f-lookup-missing", "no-such-agent-program", true),
      ],
      { timeoutMs: 1000, env, cwd: dir },
    );
    expect(performance.now() - started).toBeLessThan(8000);
    expect(found.working).toEqual(["a-ok", "e-lookup"]);
    const reasons = Object.fromEntries(found.failures.map((f) => [f.agent, f.reason]));
    expect(reasons["b-fails"]).toBe(`${fails} --version exited with code 3: not logged in`);
    expect(reasons["c-hangs"]).toBe(`${hangs} --version did not answer within 1s`);
    expect(reasons["d-missing"]).toBe(`${join(dir, "nowhere")} is not an executable file`);
    expect(found.failures.filter((f) => f.missing).map((f) => f.agent)).toEqual([
      "d-missing",
      "f-lookup-missing",
    ]);
    expect(reasons["f-lookup-missing"]).toBe("no program 'no-such-agent-program' on PATH");
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    expect(
      existsSync(`/proc/${sleeper}`) && !readFileSync(`/proc/${sleeper}/stat`, "utf8").includes(") Z "),
    ).toBe(false);
  });

  it("refuses an --agent that does not start, with its install hint; assumes the implicit default", async () => {
    const broken = bin("broken-claude", "exit 1");
    const named = parseAgentFlags({ agent: "claude" }, { ...env, CLAUDE_BIN: broken }, dir);
    const error = await findWorkingAgents(named, { env, cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      `--agent claude does not start here: ${broken} --version exited with code 1`,
    );
    expect((error as ConfigurationError).hint).toContain("install Claude Code");
    // Not named: Claude Code is checked as before (its program exists), not started.
    const implicit = parseAgentFlags({}, { ...env, CLAUDE_BIN: broken }, dir);
    expect(await findWorkingAgents(implicit, { env, cwd: dir })).toEqual({ agents: ["claude"], notes: [] });
  });

  it("says why an agent the plan names is left out: not installed, cmd without its command, unknown", async () => {
    const setup = parseAgentFlags({}, { ...env, CLAUDE_BIN: bin("claude-ok", "exit 0") }, dir);
    const only = new Set(["codex", "cmd", "myagent"]);
    const found = await findWorkingAgents(setup, { env, cwd: dir, only });
    expect(found.agents).toEqual(["claude"]);
    expect(found.notes).toEqual([
      expect.stringMatching(/^agent codex left out: no program 'codex' on PATH; install the Codex CLI/),
      "agent cmd left out: the plan's agent cmd needs the command to run; give it with --agent-cmd 'my-agent --prompt-file {prompt_file}' or WHILLY_AGENT_CMD",
      "agent myagent left out: the plan's agent: no agent named 'myagent'; use one of claude, codex, gemini, cmd",
    ]);
    // Not named by the plan: an agent nobody set up stays silent.
    expect((await findWorkingAgents(setup, { env, cwd: dir })).notes).toEqual([]);
  });

  it("advertises the generic command once its program is found, and notes it otherwise", async () => {
    const agent = bin("my-agent", "exit 0");
    const found = parseAgentFlags({ agentCmd: `${agent} {prompt_file}` }, env, dir);
    expect(await findWorkingAgents(found, { env, cwd: dir })).toEqual({
      agents: ["claude", "cmd"],
      notes: [],
    });
    const missing = parseAgentFlags({ agentCmd: "./gone {prompt}" }, env, dir);
    expect(await findWorkingAgents(missing, { env, cwd: dir })).toEqual({
      agents: ["claude"],
      notes: [`agent cmd left out: ${join(dir, "gone")} is not an executable file`],
    });
  });
});
