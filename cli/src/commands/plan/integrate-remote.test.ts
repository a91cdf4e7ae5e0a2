import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll, scratchDir } from "../../../../test/support/cli.js";
import { type Clones, git, makeClones } from "../../../../test/support/integrate.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** A fresh clone of origin, as another machine would make it. */
function freshClone(c: Clones): string {
  const dir = join(scratchDir("whilly-other-"), "clone");
  git(c.env, dirname(dir), "clone", "-q", c.origin, dir);
  return dir;
}

/** The number of merge commits whilly made on `branch` in `dir`. */
function merges(c: Clones, dir: string, branch: string): number {
  return git(c.env, dir, "log", "--first-parent", "--merges", "--format=%s", branch)
    .split("\n")
    .filter((s) => s.startsWith("whilly: merge")).length;
}

describe("whilly plan integrate and the branch already on the remote", () => {
  it("a fresh clone starts from origin's branch and merges nothing again", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    const b = c.work("B", { "b.txt": "b\n" });
    await c.finish({ A: a, B: b });
    const first = await c.whilly("plan", "integrate", "p", "--push");
    expect(first.code, first.out).toBe(0);
    const pushed = git(c.env, c.origin, "rev-parse", "refs/heads/whilly/p");

    // Another clone, with no whilly/p of its own: it takes origin's.
    const other = freshClone(c);
    const again = await c.whilly("plan", "integrate", "p", "--push", "--repo", other, "--json");
    expect(again.code, again.out + again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({
      status: "integrated",
      created: true,
      created_from: "origin/whilly/p",
      remote_branch: { ref: "origin/whilly/p", commits_not_in_branch: 0 },
      merged: [],
      already_in: [{ task_id: "A" }, { task_id: "B" }],
      pushed: true,
      tip: pushed,
    });
    expect(again.err).toContain(`integrate: whilly/p: created from origin/whilly/p (${pushed.slice(0, 12)})`);
    expect(git(c.env, other, "rev-parse", "whilly/p")).toBe(pushed);
    expect(git(c.env, other, "config", "branch.whilly/p.whillyPlan")).toBe("p");
    expect(git(c.env, other, "worktree", "list")).not.toContain(".whilly");
  });

  it("merges a task DONE since on top of origin's branch; a clone left behind is fast-forwarded", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "C", priority: "low" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    expect((await c.whilly("plan", "integrate", "p", "--push")).code).toBe(0);
    const other = freshClone(c);
    const cc = c.work("C", { "c.txt": "c\n" });
    await c.finish({ C: cc });

    const text = await c.whilly("plan", "integrate", "p", "--push", "--repo", other);
    expect(text.code, text.out).toBe(0);
    expect(text.out).toContain("plan p → whilly/p (created from origin/whilly/p) at ");
    expect(text.out).toContain("merged:      C (fetched from origin)\n  already in:  A\n");
    expect(text.out).toContain("integrated: whilly/p\npushed whilly/p to origin\n");
    expect(git(c.env, c.origin, "rev-parse", "refs/heads/whilly/p")).toBe(
      git(c.env, other, "rev-parse", "whilly/p"),
    );
    expect(merges(c, c.origin, "whilly/p")).toBe(2);

    // The first clone's whilly/p is behind origin's now: fast-forwarded, nothing merged again.
    const behind = await c.whilly("plan", "integrate", "p", "--push", "--json");
    expect(behind.code, behind.out + behind.err).toBe(0);
    expect(JSON.parse(behind.out)).toMatchObject({
      created: false,
      created_from: null,
      fast_forwarded_to: "origin/whilly/p",
      merged: [],
      already_in: [{ task_id: "A" }, { task_id: "C" }],
      pushed: true,
    });
    expect(behind.err).toContain("integrate: whilly/p: fast-forwarded to origin/whilly/p");
    expect(git(c.env, c.user, "rev-parse", "whilly/p")).toBe(git(c.env, c.origin, "rev-parse", "whilly/p"));
  }, 60_000);

  it("with --push, a branch that diverged from origin's stops before merging, naming the merge to make", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B" }, { id: "C", priority: "low" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    expect((await c.whilly("plan", "integrate", "p", "--push")).code).toBe(0);
    const other = freshClone(c);
    // Each clone integrates a different task DONE since: the branches diverge.
    const b = c.work("B", { "b.txt": "b\n" });
    await c.finish({ B: b });
    expect((await c.whilly("plan", "integrate", "p", "--push", "--repo", other)).code).toBe(0);
    const local = git(c.env, c.user, "commit-tree", "-p", "whilly/p", "-m", "local", "whilly/p^{tree}");
    git(c.env, c.user, "update-ref", "refs/heads/whilly/p", local);

    const stopped = await c.whilly("plan", "integrate", "p", "--push", "--json");
    expect(stopped.code, stopped.out).toBe(1);
    const report = JSON.parse(stopped.out);
    expect(report).toMatchObject({
      status: "stopped",
      pushed: false,
      merged: [],
      already_in: [{ task_id: "A" }],
      not_merged: ["B"],
      stopped: { reason: "branch_diverged", task_id: null },
    });
    expect(stopped.err).toContain("integrate: whilly/p: origin/whilly/p has 2 commits whilly/p does not");
    const wt = report.worktree as string;
    expect(report.stopped.message).toContain("origin/whilly/p has 2 commits whilly/p does not");
    expect(report.stopped.next[0]).toContain(`git -C ${wt} merge --no-edit origin/whilly/p`);
    expect(git(c.env, c.origin, "rev-parse", "refs/heads/whilly/p")).not.toBe(local);

    // Following the hint: merge origin's branch in the worktree, run again: B is in, nothing merged twice.
    git(c.env, wt, "merge", "-q", "--no-edit", "origin/whilly/p");
    const done = await c.whilly("plan", "integrate", "p", "--push", "--json");
    expect(done.code, done.out).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({
      merged: [],
      already_in: [{ task_id: "A" }, { task_id: "B" }],
    });
    expect(git(c.env, c.origin, "merge-base", "--is-ancestor", local, "refs/heads/whilly/p")).toBe("");
  }, 60_000);

  it("without --push, a diverged branch is integrated with a note of what origin's has", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    // origin's whilly/p holds a commit of its own; the user's whilly/p starts elsewhere.
    git(c.env, c.worker, "checkout", "-q", "-B", "elsewhere", "origin/main");
    writeFileSync(join(c.worker, "x.txt"), "x\n");
    git(c.env, c.worker, "add", "-A");
    git(c.env, c.worker, "commit", "-q", "-m", "on origin only");
    git(c.env, c.worker, "push", "-q", "origin", "HEAD:refs/heads/whilly/p");
    const mine = git(c.env, c.user, "commit-tree", "-p", "main", "-m", "mine", "main^{tree}");
    git(c.env, c.user, "branch", "whilly/p", mine);

    const result = await c.whilly("plan", "integrate", "p");
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain("integrated: whilly/p\n");
    expect(result.out).toContain(
      "note: origin/whilly/p has 1 commit whilly/p does not (pushed from another clone): merge it before you push: git switch whilly/p && git merge origin/whilly/p",
    );
  });
});
