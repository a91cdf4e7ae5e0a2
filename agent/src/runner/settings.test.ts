import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_CLAUDE_MODEL,
  DEFAULT_NO_PROXY,
  parseClaudeSettings,
  ROOT_ALLOWED_TOOLS,
} from "./settings.js";

const user = { isRoot: false };
const root = { isRoot: true };

describe("parseClaudeSettings", () => {
  it("defaults: claude on PATH, the default model, skip permissions for a normal user", () => {
    expect(parseClaudeSettings({}, user)).toEqual({
      claudeBin: "claude",
      model: DEFAULT_CLAUDE_MODEL,
      safe: false,
      permissions: "skip",
      allowedTools: ROOT_ALLOWED_TOOLS,
      proxyUrl: undefined,
      noProxy: DEFAULT_NO_PROXY,
      maxTurns: undefined,
      killGraceMs: 5000,
    });
  });

  it("reads CLAUDE_BIN, WHILLY_MODEL and WHILLY_CLAUDE_MAX_TURNS", () => {
    const s = parseClaudeSettings(
      { CLAUDE_BIN: " /opt/claude ", WHILLY_MODEL: "claude-sonnet-4-6", WHILLY_CLAUDE_MAX_TURNS: "40" },
      user,
    );
    expect(s).toMatchObject({ claudeBin: "/opt/claude", model: "claude-sonnet-4-6", maxTurns: 40 });
  });

  it.each(["1", "true", "yes", "YES", " True "])(
    "WHILLY_CLAUDE_SAFE=%j means acceptEdits, as root too",
    (v) => {
      expect(parseClaudeSettings({ WHILLY_CLAUDE_SAFE: v }, user).permissions).toBe("accept-edits");
      expect(parseClaudeSettings({ WHILLY_CLAUDE_SAFE: v }, root).permissions).toBe("accept-edits");
    },
  );

  it.each(["maybe", "2", "ye s"])(
    "WHILLY_CLAUDE_SAFE=%j is refused, naming the variable and its words",
    (v) => {
      let thrown: unknown;
      try {
        parseClaudeSettings({ WHILLY_CLAUDE_SAFE: v }, user);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect(thrown).toMatchObject({
        message: `WHILLY_CLAUDE_SAFE must be 1, true or yes (safe mode on) or 0, false or no (off); got '${v}'`,
        hint: "e.g. WHILLY_CLAUDE_SAFE=1, or unset it",
      });
    },
  );

  it.each(["0", "no", "false", ""])("WHILLY_CLAUDE_SAFE=%j is not safe mode", (v) => {
    expect(parseClaudeSettings({ WHILLY_CLAUDE_SAFE: v }, user).safe).toBe(false);
  });

  it("as root uses the allow-list unless IS_SANDBOX is exactly 1", () => {
    expect(parseClaudeSettings({}, root).permissions).toBe("allowlist");
    expect(parseClaudeSettings({ IS_SANDBOX: "yes" }, root).permissions).toBe("allowlist");
    expect(parseClaudeSettings({ IS_SANDBOX: "true" }, root).permissions).toBe("allowlist");
    expect(parseClaudeSettings({ IS_SANDBOX: "1" }, root).permissions).toBe("skip");
  });

  it("WHILLY_CLAUDE_ALLOWED_TOOLS replaces the allow-list", () => {
    const s = parseClaudeSettings({ WHILLY_CLAUDE_ALLOWED_TOOLS: "Write, Read Bash(git:*)" }, root);
    expect(s.allowedTools).toEqual(["Write", "Read", "Bash(git:*)"]);
  });

  it("reads the proxy and honours an empty WHILLY_CLAUDE_NO_PROXY", () => {
    const s = parseClaudeSettings({ WHILLY_CLAUDE_PROXY_URL: " http://127.0.0.1:8888 " }, user);
    expect(s).toMatchObject({ proxyUrl: "http://127.0.0.1:8888", noProxy: DEFAULT_NO_PROXY });
    const empty = parseClaudeSettings(
      { WHILLY_CLAUDE_PROXY_URL: "http://p:1", WHILLY_CLAUDE_NO_PROXY: "" },
      user,
    );
    expect(empty.noProxy).toBe("");
    expect(parseClaudeSettings({ WHILLY_CLAUDE_PROXY_URL: "  " }, user).proxyUrl).toBeUndefined();
  });

  it.each(["-1", "1e3", "0x10", "abc", "NaN", "2147483648", "5s", "+5"])(
    "refuses WHILLY_CLAUDE_KILL_GRACE_MS=%j, naming the range",
    (value) => {
      expect(() => parseClaudeSettings({ WHILLY_CLAUDE_KILL_GRACE_MS: value }, user)).toThrow(
        `WHILLY_CLAUDE_KILL_GRACE_MS must be a number of milliseconds from 0 up to 2147483647; got '${value}'`,
      );
    },
  );

  it("takes a kill grace from 0 (SIGKILL at once) up to what a timer holds", () => {
    for (const [value, ms] of [
      ["0", 0],
      ["2147483647", 2_147_483_647],
      ["250", 250],
      ["1.5", 2],
    ] as const) {
      expect(parseClaudeSettings({ WHILLY_CLAUDE_KILL_GRACE_MS: value }, user).killGraceMs).toBe(ms);
    }
  });

  it.each(["0", "-1", "1.5", "0x10", "1e3", "1000000", "ten"])(
    "refuses WHILLY_CLAUDE_MAX_TURNS=%j, naming the range",
    (value) => {
      expect(() => parseClaudeSettings({ WHILLY_CLAUDE_MAX_TURNS: value }, user)).toThrow(
        `WHILLY_CLAUDE_MAX_TURNS must be a whole number from 1 to 999999; got '${value}'`,
      );
    },
  );

  it.each([
    ["WHILLY_CLAUDE_MAX_TURNS", "0"],
    ["WHILLY_CLAUDE_MAX_TURNS", "ten"],
    ["WHILLY_CLAUDE_PROXY_URL", "not a url"],
    ["WHILLY_CLAUDE_KILL_GRACE_MS", "-1"],
  ])("rejects %s=%j with a ConfigurationError naming it", (name, value) => {
    let caught: unknown;
    try {
      parseClaudeSettings({ [name]: value }, user);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as Error).message).toContain(name);
  });
});
