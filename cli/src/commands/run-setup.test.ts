import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  readAgentLog,
  removeAll,
  runBin,
  runCli,
  scratchDir,
  writePlanFile,
} from "../../../test/support/cli.js";

// `whilly run` refusing a setup that could never run a task, before it opens the store or claims.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run with an agent that cannot be started", () => {
  it("exits 2 naming CLAUDE_BIN for a missing path, and creates no store", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const result = await runBin(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: "/nonexistent/claude" }),
    });
    expect([result.code, result.out]).toEqual([2, ""]);
    expect(result.err).toMatch(/^error: CLAUDE_BIN: .*\/nonexistent\/claude.*\nhint: .*CLAUDE_BIN/);
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });

  it("exits 2 for a file that is not executable, and for a name not on PATH", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const script = join(repo, "claude");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o644);
    const notExecutable = await runCli(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: script }),
    });
    expect(notExecutable.code).toBe(2);
    expect(notExecutable.err).toContain(`chmod +x ${script}`);
    const notOnPath = await runCli(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: "no-such-claude" }),
    });
    expect(notOnPath.code).toBe(2);
    expect(notOnPath.err).toContain("error: CLAUDE_BIN: no program 'no-such-claude' on PATH");
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });
});

describe("whilly run with a file and --plan", () => {
  it("is a usage error (exit 2) when --plan names another plan, storing and running nothing", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const log = join(scratchDir("whilly-agent-"), "agent.log");
    const result = await runCli(["run", "tasks.json", "--plan", "other"], {
      cwd: repo,
      env: fakeAgentEnv({ script: {}, log }),
    });
    expect(result).toEqual({
      code: 2,
      out: "",
      err:
        "error: --plan 'other' does not match the file's plan id 'p'\n" +
        "hint: run the file alone (whilly run tasks.json), or a stored plan with --plan alone\n",
    });
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
    expect(readAgentLog(log)).toEqual([]);
  });

  it("runs the file when --plan names the file's own plan", async () => {
    const repo = makeRepo(template);
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const log = join(scratchDir("whilly-agent-"), "agent.log");
    const result = await runCli(["run", "tasks.json", "--plan", "p"], {
      cwd: repo,
      env: fakeAgentEnv({ script: {}, log }),
    });
    expect(result.code).toBe(0);
    expect(result.err).not.toContain("warning");
    expect(readAgentLog(log).map((e) => e.task)).toEqual(["T-1"]);
  });
});
