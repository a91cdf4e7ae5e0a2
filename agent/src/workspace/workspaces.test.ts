import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { findRepository } from "./repo.js";
import { slugOf } from "./slug.js";
import { gitIn, isolatedGitEnv, makeGitRepo, removeScratch, scratch } from "./testing/git-repo.js";
import { openWorkspaces } from "./workspaces.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const task = (id: string, description = `do ${id}`) => ({ id, description });

/** Opens a plan's workspaces on a fresh repository. */
async function setup(options: { identity?: boolean; files?: Record<string, string> } = {}) {
  const repo = makeGitRepo(env, options);
  const ws = await openWorkspaces({ repoDir: repo, planId: "Plan 1", env });
  return { repo, ws };
}

/** Runs a task the way the pipeline does: a worktree, a file written, committed, merged. */
async function doTask(
  ws: Awaited<ReturnType<typeof openWorkspaces>>,
  id: string,
  files: Record<string, string>,
) {
  const prepared = await ws.prepare(task(id), { reuse: false });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(prepared.dir, path), text);
  await ws.commitLeftovers(prepared.dir, task(id));
  return { prepared, merged: await ws.integrate(task(id)) };
}

describe("openWorkspaces", () => {
  it("refuses a repository with no commit, with the hint to make one", async () => {
    const repo = makeGitRepo(env, { commit: false });
    const opening = openWorkspaces({ repoDir: repo, planId: "p", env });
    await expect(opening).rejects.toThrow(ConfigurationError);
    await expect(opening).rejects.toMatchObject({
      hint: "make a first commit: git commit --allow-empty -m init",
    });
  });

  it("finds the repository holding a directory, and none outside git", async () => {
    const repo = makeGitRepo(env);
    mkdirSync(join(repo, "sub"));
    expect(await findRepository(join(repo, "sub"), env)).toBe(realpathSync(repo));
    expect(await findRepository(scratch(), env)).toBeUndefined();
  });

  it("refuses a directory outside git", async () => {
    await expect(openWorkspaces({ repoDir: scratch(), planId: "p", env })).rejects.toThrow(
      /not inside a git/,
    );
  });

  it("refuses --branch naming the branch checked out", async () => {
    const repo = makeGitRepo(env);
    await expect(openWorkspaces({ repoDir: repo, planId: "p", branch: "main", env })).rejects.toThrow(
      /checked out/,
    );
  });

  it("creates the integration branch from the start commit and keeps .whilly out of git", async () => {
    const { repo, ws } = await setup();
    expect(ws.integrationBranch).toBe(`whilly/${slugOf("Plan 1")}`);
    expect(git(repo, "rev-parse", ws.integrationBranch)).toBe(git(repo, "rev-parse", "HEAD"));
    expect(ws.userBranch).toBe("main");
    expect(ws.resumed).toBe(false);
    expect(readFileSync(join(repo, ".git", "info", "exclude"), "utf8")).toContain("/.whilly/");
    const again = await openWorkspaces({ repoDir: repo, planId: "Plan 1", env });
    expect(again.resumed).toBe(true);
  });

  it("moves a resumed integration branch up to HEAD when the user took its work and went on", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    expect((await ws.finish()).fastForwarded).toBe(true);
    writeFileSync(join(repo, "later.txt"), "later\n");
    git(repo, "add", "later.txt");
    git(repo, "commit", "-q", "-m", "more work");
    const resumed = await openWorkspaces({ repoDir: repo, planId: "Plan 1", env });
    expect(resumed.resumed).toBe(true);
    expect(git(repo, "rev-parse", resumed.integrationBranch)).toBe(git(repo, "rev-parse", "HEAD"));
  });
});

describe("a task's worktree", () => {
  it("starts from the integration branch, which holds the merged work of tasks done before", async () => {
    const { repo, ws } = await setup();
    const a = await doTask(ws, "A", { "a.txt": "from A\n" });
    const b = await doTask(ws, "B", { "b.txt": "from B\n" });
    expect(a.merged.ok && b.merged.ok).toBe(true);
    const c = await ws.prepare(task("C"), { reuse: false });
    expect(readFileSync(join(c.dir, "a.txt"), "utf8")).toBe("from A\n");
    expect(readFileSync(join(c.dir, "b.txt"), "utf8")).toBe("from B\n");
    expect(c.dir).toBe(join(repo, ".whilly", "worktrees", slugOf("Plan 1"), slugOf("C")));
    expect(c.branch).toBe(`whilly-tasks/${slugOf("Plan 1")}/${slugOf("C")}`);
    // The user's tree is untouched until the run ends.
    expect(existsSync(join(repo, "a.txt"))).toBe(false);
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("is kept for a retry when reuse is allowed, and made afresh when not", async () => {
    const { ws } = await setup();
    const first = await ws.prepare(task("T"), { reuse: false });
    writeFileSync(join(first.dir, "draft.txt"), "work in progress\n");
    const kept = await ws.prepare(task("T"), { reuse: true });
    expect(kept).toMatchObject({ dir: first.dir, reused: true });
    expect(existsSync(join(kept.dir, "draft.txt"))).toBe(true);
    const fresh = await ws.prepare(task("T"), { reuse: false });
    expect(fresh.reused).toBe(false);
    expect(existsSync(join(fresh.dir, "draft.txt"))).toBe(false);
  });

  it("is made anew when its directory was deleted by hand", async () => {
    const { ws } = await setup();
    const first = await ws.prepare(task("T"), { reuse: false });
    rmSync(first.dir, { recursive: true, force: true });
    const again = await ws.prepare(task("T"), { reuse: true });
    expect(again).toMatchObject({ dir: first.dir, reused: false });
    expect(existsSync(join(again.dir, "README.md"))).toBe(true);
  });

  it("commits leftovers with whilly's identity when the repository has none, setup's files left out", async () => {
    const { ws } = await setup({ identity: false });
    const { dir } = await ws.prepare(task("T-1", "Add the parser\nmore words"), { reuse: false });
    writeFileSync(join(dir, "vendor-cache"), "made by setup\n");
    await ws.recordSetup(dir);
    writeFileSync(join(dir, "parser.ts"), "export {};\n");
    const { commit: sha } = await ws.commitLeftovers(dir, task("T-1", "Add the parser\nmore words"));
    expect(sha).toBe(git(dir, "rev-parse", "HEAD"));
    expect(git(dir, "log", "-1", "--format=%an <%ae>|%s")).toBe(
      "whilly <whilly@localhost>|whilly: T-1: Add the parser",
    );
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("parser.ts");
    expect((await ws.commitLeftovers(dir, task("T-1"))).commit).toBeUndefined();
  });

  it("merges the work of an agent that switched to a branch of its own", async () => {
    const { repo, ws } = await setup();
    const { dir } = await ws.prepare(task("T"), { reuse: false });
    git(dir, "checkout", "-q", "-b", "agent/feature");
    writeFileSync(join(dir, "feature.txt"), "f\n");
    git(dir, "add", "feature.txt");
    git(dir, "commit", "-q", "-m", "agent's commit");
    writeFileSync(join(dir, "left.txt"), "l\n");
    await ws.commitLeftovers(dir, task("T"));
    expect((await ws.integrate(task("T"))).ok).toBe(true);
    expect(git(repo, "ls-tree", "--name-only", ws.integrationBranch)).toBe(
      "README.md\nfeature.txt\nleft.txt",
    );
  });

  it("commits with the repository's own identity when it has one", async () => {
    const { ws } = await setup();
    const { dir } = await ws.prepare(task("T"), { reuse: false });
    writeFileSync(join(dir, "x.txt"), "x\n");
    await ws.commitLeftovers(dir, task("T"));
    expect(git(dir, "log", "-1", "--format=%an <%ae>")).toBe("Tester <tester@example.com>");
  });
});

describe("integrate", () => {
  it("fails a conflicting merge with the files, leaves the branch alone, and a fresh worktree has the new base", async () => {
    const { repo, ws } = await setup({ files: { "shared.txt": "line\n" } });
    const b = await ws.prepare(task("B"), { reuse: false });
    await doTask(ws, "A", { "shared.txt": "line from A\n" });
    const tip = git(repo, "rev-parse", ws.integrationBranch);
    writeFileSync(join(b.dir, "shared.txt"), "line from B\n");
    await ws.commitLeftovers(b.dir, task("B"));
    expect(await ws.integrate(task("B"))).toEqual({
      ok: false,
      reason: "merge_conflict",
      files: ["shared.txt"],
    });
    expect(git(repo, "rev-parse", ws.integrationBranch)).toBe(tip);
    const retry = await ws.prepare(task("B"), { reuse: false });
    expect(retry.base).toBe(tip);
    expect(readFileSync(join(retry.dir, "shared.txt"), "utf8")).toBe("line from A\n");
  });

  it("takes the merge back when the checks on the merged tree fail", async () => {
    const { repo, ws } = await setup();
    const before = git(repo, "rev-parse", ws.integrationBranch);
    const prepared = await ws.prepare(task("A"), { reuse: false });
    writeFileSync(join(prepared.dir, "a.txt"), "A\n");
    await ws.commitLeftovers(prepared.dir, task("A"));
    let merged = "";
    const result = await ws.integrate(task("A"), {
      check: async (dir) => {
        merged = readFileSync(join(dir, "a.txt"), "utf8");
        return { step: "npm test", exit_code: 1, output_tail: "1 failed" };
      },
    });
    expect(merged).toBe("A\n");
    expect(result).toEqual({
      ok: false,
      reason: "integration_failed",
      step: "npm test",
      exit_code: 1,
      output_tail: "1 failed",
    });
    expect(git(repo, "rev-parse", ws.integrationBranch)).toBe(before);
    const integrationDir = join(repo, ".whilly", "worktrees", slugOf("Plan 1"), "_integration");
    expect(git(integrationDir, "rev-parse", "HEAD")).toBe(before);
    // The next merge starts from the branch, not from the failed merge.
    const next = await doTask(ws, "B", { "b.txt": "B\n" });
    expect(next.merged.ok).toBe(true);
    expect(git(repo, "ls-tree", "--name-only", ws.integrationBranch)).toBe("README.md\nb.txt");
  });
});

describe("finish", () => {
  it("fast-forwards the user's branch when it is checked out, clean and where the run started", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    const result = await ws.finish();
    expect(result).toEqual({
      fastForwarded: true,
      branch: "main",
      commit: git(repo, "rev-parse", ws.integrationBranch),
      userTreeChanged: [],
    });
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("A\n");
    expect(git(repo, "worktree", "list", "--porcelain")).not.toContain("_integration");
  });

  it("fast-forwards past an untracked file of the user's that the work does not touch", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    writeFileSync(join(repo, "plan.json"), "{}\n");
    expect(await ws.finish()).toMatchObject({ fastForwarded: true });
    expect(readFileSync(join(repo, "plan.json"), "utf8")).toBe("{}\n");
  });

  it("leaves a dirty tree alone and says which command takes the work", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    writeFileSync(join(repo, "README.md"), "edited by the user\n");
    const result = await ws.finish();
    expect(result).toMatchObject({
      fastForwarded: false,
      command: `git merge --ff-only ${ws.integrationBranch}`,
    });
    expect(existsSync(join(repo, "a.txt"))).toBe(false);
  });

  it("leaves a branch that moved alone", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    writeFileSync(join(repo, "user.txt"), "mine\n");
    git(repo, "add", "user.txt");
    git(repo, "commit", "-q", "-m", "user's own commit");
    const result = await ws.finish();
    expect(result).toMatchObject({ fastForwarded: false, command: `git merge ${ws.integrationBranch}` });
    expect(existsSync(join(repo, "a.txt"))).toBe(false);
  });

  it("leaves another checked-out branch alone", async () => {
    const { repo, ws } = await setup();
    await doTask(ws, "A", { "a.txt": "A\n" });
    git(repo, "checkout", "-q", "-b", "other");
    const result = await ws.finish();
    expect(result).toMatchObject({
      fastForwarded: false,
      command: `git merge --ff-only ${ws.integrationBranch}`,
    });
    expect(git(repo, "rev-parse", "main")).toBe(ws.startCommit);
  });

  it("never fast-forwards a run started on a detached HEAD", async () => {
    const repo = makeGitRepo(env);
    git(repo, "checkout", "-q", "--detach");
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    expect(ws.userBranch).toBeUndefined();
    await doTask(ws, "A", { "a.txt": "A\n" });
    expect(await ws.finish()).toEqual({
      fastForwarded: false,
      command: "git merge --ff-only whilly/p",
      why: "HEAD was detached when the run started",
      userTreeChanged: [],
    });
  });

  it("has nothing to do when no task was merged", async () => {
    const { ws } = await setup();
    expect(await ws.finish()).toMatchObject({ fastForwarded: false, command: undefined });
  });
});

describe("a check that removes the integration worktree's .git", () => {
  it("never puts the user's own tree back: git finds no repository there, not the clone above it", async () => {
    const { repo, ws } = await setup();
    const prepared = await ws.prepare(task("a"), { reuse: false });
    writeFileSync(join(prepared.dir, "a.txt"), "a\n");
    await ws.commitLeftovers(prepared.dir, task("a"));
    writeFileSync(join(repo, "README.md"), "the user's own edit, not committed\n");
    const head = git(repo, "rev-parse", "HEAD");
    const check = async (dir: string) => {
      rmSync(join(dir, ".git"));
      return { step: "verify", exit_code: 1, output_tail: "failed" };
    };
    await ws.integrate(task("a"), { check }).catch(() => undefined);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("the user's own edit, not committed\n");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
  });
});
