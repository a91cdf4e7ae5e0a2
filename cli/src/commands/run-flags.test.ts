import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  fakeAgentEnv,
  makeStoreTemplate,
  oneTaskRun,
  removeAll,
  runCli,
  scratchDir,
  withStore,
  writePlanFile,
} from "../../../test/support/cli.js";

// `whilly run`'s worktree and check flags, with a fake Claude Code that writes nothing
// (test/fixtures/fake-agents/by-task.mjs): real git, real store, real checks.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

function setup(planId: string) {
  const { repo, run } = oneTaskRun(template, planId);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  return { repo, run, git };
}

describe("whilly run's flags", () => {
  it("--verify adds a check that decides, --max-attempts is stored as the plan's", async () => {
    const { repo, run } = setup("checked");
    const result = await run("--verify", "test -f nowhere.txt", "--verify", "true", "--max-attempts", "1");
    expect(result.code).toBe(1);
    const fail = (await eventsOf(repo, "checked")).find((e) => e.eventType === "FAIL");
    expect(fail?.payload).toMatchObject({ reason: "verification_failed" });
    const plan = await withStore(repo, (store) => store.getPlan("checked"));
    expect(plan?.maxAttempts).toBe(1);
  });

  it("--setup runs in the new worktree and what it made is not committed; --branch names the integration branch", async () => {
    const { run, git } = setup("prepared");
    const result = await run(
      "--setup",
      "echo made > setup-made.txt",
      "--verify",
      "test -f setup-made.txt",
      "--branch",
      "work/prepared",
    );
    expect(result.code).toBe(0);
    expect(git("branch", "--list", "work/prepared").trim()).toBe("work/prepared");
    expect(git("ls-tree", "-r", "--name-only", "work/prepared")).not.toContain("setup-made.txt");
  });

  it("refuses a repository with no commit before it stores anything, with the hint to make one", async () => {
    const repo = scratchDir("whilly-nocommit-");
    execFileSync("git", ["init", "-q", repo]);
    writePlanFile(join(repo, "tasks.json"), "early", [["E-1", "high"]]);
    const result = await runCli(["run", "tasks.json"], {
      cwd: repo,
      env: fakeAgentEnv({ script: {}, log: join(repo, "log") }),
    });
    expect(result.code).toBe(2);
    expect(result.err).toContain("has no commit yet");
    expect(result.err).toContain("hint: make a first commit: git commit --allow-empty -m init");
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });

  it("refuses a bad --concurrency and --verify-timeout, naming the flag", async () => {
    const { run } = setup("bad");
    const many = await run("-j", "0");
    expect(many.code).toBe(2);
    expect(many.err).toContain("error: --concurrency must be a whole number from 1 to 32; got '0'");
    const slow = await run("--verify-timeout", "soon");
    expect(slow.code).toBe(2);
    expect(slow.err).toContain("error: --verify-timeout must be a duration like 90s, 30m or 1h; got 'soon'");
  });
});
