import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runShellStep } from "../verify/shell-step.js";
import { isKeptFromAgent } from "./agent-env.js";
import { runClaude } from "./run-claude.js";
import { parseClaudeSettings } from "./settings.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "whilly-agent-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker's environment holding git's credentials in every form the agent must not get. */
const gitCredentials = {
  SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
  SSH_ASKPASS: "/usr/bin/ssh-askpass",
  GIT_ASKPASS: "/usr/bin/git-askpass",
  GIT_SSH: "/usr/bin/ssh",
  GIT_SSH_COMMAND: "ssh -i /keys/deploy",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "http.extraHeader",
  GIT_CONFIG_VALUE_0: "Authorization: Bearer ghp_header_token_value",
  GIT_CONFIG_PARAMETERS: "'credential.helper'='store'",
  GIT_CREDENTIAL_HELPER: "store",
  GH_TOKEN: "ghp_gh_token_value",
  GITHUB_TOKEN: "ghp_github_token_value",
  GH_ENTERPRISE_TOKEN: "ghe_token_value",
  GITHUB_ENTERPRISE_TOKEN: "ghe_enterprise_token_value",
};
const kept = { GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_GLOBAL: "/home/w/.gitconfig", FAKE_AGENT_MARK: "m" };
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...gitCredentials, ...kept };

describe("the agent's environment", () => {
  it("names git's credentials as kept from the agent, and leaves git's other settings", () => {
    for (const name of Object.keys(gitCredentials)) expect(isKeptFromAgent(name), name).toBe(true);
    for (const name of Object.keys(kept)) expect(isKeptFromAgent(name), name).toBe(false);
  });

  it("never reaches a setup command or check: a real shell sees none of git's credentials", async () => {
    const run = await runShellStep({ command: "env", cwd: dir, env, timeoutMs: 10_000, killGraceMs: 100 });
    expect(run.exitCode).toBe(0);
    for (const name of Object.keys(gitCredentials)) expect(run.outputTail).not.toContain(`${name}=`);
    expect(run.outputTail).toContain("GIT_TERMINAL_PROMPT=0");
    expect(run.outputTail).toContain("GIT_CONFIG_GLOBAL=/home/w/.gitconfig");
  });

  it("never reaches the agent: the started CLI sees no SSH agent, askpass or GitHub token", async () => {
    const record = join(dir, "record.json");
    const settings = parseClaudeSettings({ CLAUDE_BIN: join(agents, "success.mjs") }, { isRoot: false });
    const result = await runClaude({
      prompt: "Task id: T-1",
      cwd: dir,
      timeoutMs: 20_000,
      settings,
      env: { ...env, FAKE_AGENT_RECORD: record },
    });
    expect(result.outcome.ok).toBe(true);
    expect(JSON.parse(readFileSync(record, "utf8")).env).toEqual({ FAKE_AGENT_MARK: "m" });
  });
});
