import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  FIXTURES,
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

describe("whilly run with a plan that names its agents", () => {
  it("runs a plan whose every task has an agent without Claude Code installed", async () => {
    const repo = makeRepo(template);
    const file = join(repo, "tasks.json");
    writePlanFile(file, "cmd-only", [
      ["M-1", "high"],
      ["M-2", "medium"],
    ]);
    const plan = JSON.parse(readFileSync(file, "utf8"));
    plan.agent = "cmd";
    plan.tasks[1].agent = "cmd";
    writeFileSync(file, JSON.stringify(plan));
    const agentCmd = `${join(FIXTURES, "fake-agents", "cmd-agent.mjs")} --prompt-file {prompt_file} --task {task_id}`;
    const env = baseEnv({ CLAUDE_BIN: "/nonexistent/claude" });
    const result = await runCli(["run", "tasks.json", "--agent-cmd", agentCmd], { cwd: repo, env });
    expect(result.err).not.toContain("CLAUDE_BIN");
    expect(result.code, result.err).toBe(0);
    expect(readFileSync(join(repo, "CMD-M-2.txt"), "utf8")).toContain("Task id: M-2");
    // A task left to the run's default still needs Claude Code's program, as before.
    delete plan.agent;
    plan.plan_id = "default-left";
    writeFileSync(file, JSON.stringify(plan));
    const missing = await runCli(["run", "tasks.json", "--agent-cmd", agentCmd], { cwd: repo, env });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error: CLAUDE_BIN: /);
  }, 60_000);
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
