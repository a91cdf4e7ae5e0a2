import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { slugOf } from "@whilly/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  killGroup,
  makeStoreTemplate,
  removeAll,
  scratchDir,
  spawnBin,
  waitFor,
} from "../../../../test/support/cli.js";
import { type Clones, git, makeClones } from "../../../../test/support/integrate.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** The subjects of the branch's first-parent history, newest first. */
function history(c: Clones, branch: string): string[] {
  return git(c.env, c.user, "log", "--first-parent", "--format=%s", branch).split("\n");
}

/** The integration worktree `plan integrate` uses for `branch`, from its --json report. */
function worktreeOf(out: string): string {
  return JSON.parse(out).worktree as string;
}

describe("whilly plan integrate", () => {
  it("merges the DONE tasks in dependency order with verify on each merged tree; a rerun is a no-op", async () => {
    const c = makeClones(template);
    const log = join(scratchDir("whilly-log-"), "verify.log");
    await c.importPlan(
      [{ id: "A" }, { id: "B", dependencies: ["A"] }, { id: "C" }, { id: "D", priority: "low" }],
      {
        setup: "touch .setup-done",
        // The embedded store is not held while checks run: its lock file is gone.
        verify: [
          `test ! -e ../../pgdata.lock && test -f .setup-done && cat a.txt >/dev/null && ls *.txt | tr '\\n' ' ' >> ${log} && echo >> ${log}`,
        ],
      },
    );
    const a = c.work("A", { "a.txt": "a\n" });
    const b = c.work("B", { "b.txt": "b\n" }, a.commit);
    const cc = c.work("C", { "c.txt": "c\n" });
    await c.finish({ A: a, B: b, C: cc });

    const first = await c.whilly("plan", "integrate", "p", "--json");
    expect(first.code, first.err).toBe(0);
    const report = JSON.parse(first.out);
    expect(report).toMatchObject({
      plan_id: "p",
      branch: "whilly/p",
      status: "integrated",
      created: true,
      merged: [
        { task_id: "A", commit: a.commit, fetched: true },
        { task_id: "C", commit: cc.commit, fetched: true },
        { task_id: "B", commit: b.commit, fetched: true },
      ],
      already_in: [],
      not_done: [{ task_id: "D", status: "PENDING" }],
      stopped: null,
      worktree: null,
    });
    expect(first.err).toContain("integrate: A: merged (fetched from origin), verify passed\n");
    expect(first.err.match(/^integrate: /gm)).toHaveLength(3);
    expect(history(c, "whilly/p")).toEqual([
      "whilly: merge B (plan p)",
      "whilly: merge C (plan p)",
      "whilly: merge A (plan p)",
      "init",
    ]);
    // Each check saw the tree as merged so far.
    expect(readFileSync(log, "utf8")).toBe("a.txt \na.txt c.txt \na.txt b.txt c.txt \n");
    // The user's own tree and branch are untouched; the worktree is gone, so the branch can be checked out.
    expect(git(c.env, c.user, "symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(git(c.env, c.user, "status", "--porcelain")).toBe("");
    expect(git(c.env, c.user, "worktree", "list")).not.toContain(".whilly");
    // Marked as the plan's, so a local `whilly run` of the plan may build on it.
    expect(git(c.env, c.user, "config", "branch.whilly/p.whillyPlan")).toBe("p");

    const again = await c.whilly("plan", "integrate", "p");
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("merged:      none\n  already in:  A, C, B\n");
    expect(again.out).toContain("not DONE, not integrated: D (PENDING)");
    expect(readFileSync(log, "utf8").split("\n")).toHaveLength(4);
    expect(history(c, "whilly/p")).toHaveLength(4);
  });

  it("stops at a conflict naming the task and files, explains it on a rerun, and continues once resolved", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B" }, { id: "C" }]);
    const a = c.work("A", { "README.md": "# by A\n" });
    const b = c.work("B", { "README.md": "# by B\n" });
    const cc = c.work("C", { "c.txt": "c\n" });
    await c.finish({ A: a, B: b, C: cc });

    const stopped = await c.whilly("plan", "integrate", "p", "--json");
    expect(stopped.code).toBe(1);
    const report = JSON.parse(stopped.out);
    expect(report).toMatchObject({
      status: "stopped",
      merged: [{ task_id: "A" }],
      not_merged: ["B", "C"],
      stopped: { reason: "merge_conflict", task_id: "B", files: ["README.md"] },
    });
    const dir = worktreeOf(stopped.out);
    expect(report.stopped.next.join("\n")).toContain(`worktree remove --force ${dir} && `);
    expect(git(c.env, dir, "rev-parse", "MERGE_HEAD")).toBe(b.commit);

    const text = await c.whilly("plan", "integrate", "p");
    expect(text.code).toBe(1);
    expect(text.out).toContain(
      `stopped: the merge of task B is still in progress in ${dir} (1 file unmerged)`,
    );
    expect(text.out).toContain("  files: README.md\n");
    expect(text.out).toContain("whilly plan integrate p\n");

    writeFileSync(join(dir, "README.md"), "# by A and B\n");
    git(c.env, dir, "add", "-A");
    git(c.env, dir, "commit", "-q", "--no-edit");
    const resumed = await c.whilly("plan", "integrate", "p", "--json");
    expect(resumed.code, resumed.err).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({
      merged: [{ task_id: "C" }],
      already_in: [{ task_id: "A" }, { task_id: "B" }],
      stopped: null,
    });
    expect(git(c.env, c.user, "show", "whilly/p:README.md")).toBe("# by A and B");
    expect(existsSync(dir)).toBe(false);
  });

  it("stops when verify fails after a merge, naming task, step, exit code and output; a fix on top is verified first", async () => {
    const c = makeClones(template);
    const verify = "test ! -f bad.txt || { echo 'bad.txt must not exist'; exit 3; }";
    await c.importPlan([{ id: "A" }, { id: "B", dependencies: ["A"] }], { verify: [verify] });
    const a = c.work("A", { "a.txt": "a\n" });
    const b = c.work("B", { "bad.txt": "x\n" }, a.commit);
    await c.finish({ A: a, B: b });

    const stopped = await c.whilly("plan", "integrate", "p");
    expect(stopped.code).toBe(1);
    expect(stopped.out).toContain(
      `stopped: the plan's verify failed after merging task B: ${verify} (exit 3)`,
    );
    expect(stopped.out).toContain("    bad.txt must not exist\n");
    expect(stopped.out).not.toContain("reset --hard");
    expect(history(c, "whilly/p")[0]).toBe("whilly: merge B (plan p)");

    const still = await c.whilly("plan", "integrate", "p", "--json");
    expect(still.code).toBe(1);
    expect(JSON.parse(still.out).stopped).toMatchObject({
      reason: "verify_failed",
      task_id: "B",
      exit_code: 3,
    });

    const dir = worktreeOf(still.out);
    git(c.env, dir, "rm", "-q", "bad.txt");
    git(c.env, dir, "commit", "-q", "-m", "fix: no bad.txt");
    const fixed = await c.whilly("plan", "integrate", "p", "--json");
    expect(fixed.code, fixed.out).toBe(0);
    expect(fixed.err).toMatch(/integrate: whilly\/p: verify passed on [0-9a-f]{12}\n/);
    expect(JSON.parse(fixed.out)).toMatchObject({
      merged: [],
      already_in: [{ task_id: "A" }, { task_id: "B" }],
    });
  });

  it("merges into --into and pushes it to origin with --push", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });

    const result = await c.whilly("plan", "integrate", "p", "--into", "release/all", "--push");
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain("integrated: release/all\npushed release/all to origin\n");
    const tip = git(c.env, c.user, "rev-parse", "release/all");
    expect(git(c.env, c.origin, "rev-parse", "refs/heads/release/all")).toBe(tip);
    expect(git(c.env, c.user, "merge-base", "--is-ancestor", a.commit, tip)).toBe("");
    expect(git(c.env, c.user, "branch", "--list", "whilly/p")).toBe("");
  });

  it("stops at a DONE task whose work was not recorded, naming it", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B", dependencies: ["A"] }]);
    const b = c.work("B", { "b.txt": "b\n" });
    await c.finish({ A: null, B: b });

    const result = await c.whilly("plan", "integrate", "p");
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      "stopped: task A is DONE but no branch and commit of its work were recorded",
    );
    expect(result.out).toContain("not merged:  A, B");
    expect(result.out).toContain("whilly-worker --push");
  });

  it("runs the setup again on a rerun after a run killed while its setup ran", async () => {
    const c = makeClones(template);
    const scratch = scratchDir("whilly-setup-");
    const [go, pid] = [join(scratch, "go"), join(scratch, "setup.pid")];
    const setup = `echo $$ > ${pid}; touch .setup-started; while [ ! -f ${go} ]; do sleep 0.1; done; touch .setup-done`;
    await c.importPlan([{ id: "A" }], { setup, verify: ["test -f .setup-done"] });
    await c.finish({ A: c.work("A", { "a.txt": "a\n" }) });

    const killed = spawnBin(["plan", "integrate", "p"], { cwd: c.user, env: c.env });
    const dir = join(c.user, ".whilly", "integrate", slugOf("whilly/p"));
    await waitFor("the setup to start", () => (existsSync(join(dir, ".setup-started")) ? true : undefined));
    killed.child.kill("SIGKILL");
    await killed.done;
    // The killed run's setup lives on, waiting: end it.
    const setupPid = Number(readFileSync(pid, "utf8"));
    killGroup(setupPid);
    try {
      process.kill(setupPid, "SIGKILL");
    } catch {
      // Gone with its group.
    }
    writeFileSync(go, "");

    const again = await c.whilly("plan", "integrate", "p");
    expect(again.code, again.out).toBe(0);
    // The killed run fetched A already; this one set the worktree up before verifying.
    expect(again.err).toContain("integrate: A: merged, verify passed\n");
  });

  it("never resets the user's own tree when a check removed the worktree's .git", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }], { verify: ["rm .git"] });
    await c.finish({ A: c.work("A", { "a.txt": "a\n" }) });
    writeFileSync(join(c.user, "README.md"), "the user's own edit, not committed\n");
    const head = git(c.env, c.user, "rev-parse", "HEAD");

    const result = await c.whilly("plan", "integrate", "p");
    expect(result.code).toBe(2);
    expect(result.err).toContain("fatal: not a git repository");
    expect(readFileSync(join(c.user, "README.md"), "utf8")).toBe("the user's own edit, not committed\n");
    expect(git(c.env, c.user, "rev-parse", "HEAD")).toBe(head);
  });
});
