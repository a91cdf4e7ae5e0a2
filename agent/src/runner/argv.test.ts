import { describe, expect, it } from "vitest";
import { claudeArgv, claudeEnv, secretsOf } from "./argv.js";
import { parseClaudeSettings } from "./settings.js";

const user = { isRoot: false };

describe("claudeArgv", () => {
  it("builds the spec's command line with the skip flag", () => {
    const s = parseClaudeSettings({ CLAUDE_BIN: "/bin/claude", WHILLY_MODEL: "m1" }, user);
    expect(claudeArgv(s, "do it")).toEqual([
      "/bin/claude",
      "--dangerously-skip-permissions",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "m1",
      "-p",
      "--",
      "do it",
    ]);
  });

  it("resumes a session when asked, before the prompt", () => {
    const s = parseClaudeSettings({ CLAUDE_BIN: "claude" }, user);
    const argv = claudeArgv(s, "go on", { resumeSessionId: "5e55-10n" });
    expect(argv.slice(-5)).toEqual(["--resume", "5e55-10n", "-p", "--", "go on"]);
    expect(claudeArgv(s, "go on")).not.toContain("--resume");
  });

  it("uses acceptEdits in safe mode and adds --max-turns when set", () => {
    const s = parseClaudeSettings({ WHILLY_CLAUDE_SAFE: "1", WHILLY_CLAUDE_MAX_TURNS: "7" }, user);
    const argv = claudeArgv(s, "- a prompt starting with a dash");
    expect(argv.slice(1, 3)).toEqual(["--permission-mode", "acceptEdits"]);
    expect(argv).not.toContain("--dangerously-skip-permissions");
    expect(argv.slice(-5)).toEqual(["--max-turns", "7", "-p", "--", "- a prompt starting with a dash"]);
  });

  it("as root without IS_SANDBOX=1 allow-lists tools instead of skipping permissions", () => {
    const s = parseClaudeSettings({ IS_SANDBOX: "yes" }, { isRoot: true });
    const argv = claudeArgv(s, "p");
    expect(argv[1]).toBe("--allowedTools");
    expect(argv[2]?.split(" ")).toEqual(
      expect.arrayContaining(["Bash", "Write", "Edit", "Read", "Glob", "Grep"]),
    );
    expect(argv).not.toContain("--dangerously-skip-permissions");
  });
});

describe("claudeEnv", () => {
  it("adds the proxy to a copy only, overriding inherited values", () => {
    const parent = { PATH: "/bin", HTTPS_PROXY: "http://old:1", NO_PROXY: "example.com", UNSET: undefined };
    const s = parseClaudeSettings({ WHILLY_CLAUDE_PROXY_URL: "http://127.0.0.1:8888" }, user);
    const child = claudeEnv(parent, s);
    expect(child).toEqual({
      PATH: "/bin",
      HTTPS_PROXY: "http://127.0.0.1:8888",
      NO_PROXY: "localhost,127.0.0.1,::1",
    });
    expect(parent.HTTPS_PROXY).toBe("http://old:1");
    expect(parent.NO_PROXY).toBe("example.com");
  });

  it("keeps whilly's own credentials out of the agent's environment", () => {
    const s = parseClaudeSettings({}, user);
    const parent = {
      A: "1",
      WHILLY_DATABASE_URL: "postgres://u:pw@h/db",
      WHILLY_WORKER_TOKEN: "t",
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "b",
      WHILLY_TOKEN_SECRET: "s",
      WHILLY_MODEL: "m",
    };
    expect(claudeEnv(parent, s)).toEqual({ A: "1", WHILLY_MODEL: "m" });
  });

  it("passes the environment through unchanged without a proxy", () => {
    const s = parseClaudeSettings({}, user);
    expect(claudeEnv({ A: "1", HTTPS_PROXY: "http://keep:1" }, s)).toEqual({
      A: "1",
      HTTPS_PROXY: "http://keep:1",
    });
  });
});

describe("secretsOf", () => {
  it("lists credentials and a proxy password", () => {
    expect(
      secretsOf({
        ANTHROPIC_API_KEY: "sk-ant-xyz",
        ANTHROPIC_AUTH_TOKEN: "tok-123456",
        HTTPS_PROXY: "http://me:p%40ss-word@proxy:8080",
        PATH: "/bin",
      }),
    ).toEqual(expect.arrayContaining(["sk-ant-xyz", "tok-123456", "p@ss-word"]));
  });
});
