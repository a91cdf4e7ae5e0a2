import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { checkAgentBin } from "./agent-bin.js";

// Real files: the check must find a program where spawn would, and refuse what spawn would refuse.
const dir = mkdtempSync(join(tmpdir(), "whilly-agent-bin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "tools"));
mkdirSync(join(dir, "work"));
writeFileSync(join(dir, "tools", "claude"), "#!/bin/sh\n", { mode: 0o755 });
writeFileSync(join(dir, "work", "local-claude"), "#!/bin/sh\n", { mode: 0o755 });
mkdirSync(join(dir, "tools", "claude-dir"));

describe("checkAgentBin", () => {
  it("finds a name along the agent's PATH, an empty entry being the working directory", () => {
    const work = join(dir, "work");
    expect(() => checkAgentBin("claude", { PATH: `/nonexistent:${join(dir, "tools")}` }, work)).not.toThrow();
    expect(() => checkAgentBin("local-claude", { PATH: "/usr/bin:" }, work)).not.toThrow();
    expect(() => checkAgentBin("../tools/claude", {}, work)).not.toThrow();
    expect(() => checkAgentBin("claude", { PATH: "/usr/bin" }, work)).toThrow(
      "CLAUDE_BIN: no program 'claude' on PATH (/usr/bin)",
    );
  });

  it("refuses a directory, naming it", () => {
    const path = join(dir, "tools", "claude-dir");
    expect(() => checkAgentBin(path, {}, dir)).toThrow(ConfigurationError);
    expect(() => checkAgentBin(path, {}, dir)).toThrow(`CLAUDE_BIN ${path} is a directory, not a program`);
  });
});
