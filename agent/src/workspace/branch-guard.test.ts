import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitIn, isolatedGitEnv, makeGitRepo, removeScratch, scratch } from "./testing/git-repo.js";
import { openWorkspaces } from "./workspaces.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const task = (id: string) => ({ id, description: `do ${id}` });
type Ws = Awaited<ReturnType<typeof openWorkspaces>>;

async function doTask(ws: Ws, id: string, files: Record<string, string>) {
  const prepared = await ws.prepare(task(id), { reuse: false });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(prepared.dir, path), text);
  await ws.commitLeftovers(prepared.dir, task(id));
  return { prepared, merged: await ws.integrate(task(id)) };
}

describe("the integration branch whilly wrote", () => {
  it("refuses to merge onto a branch an agent moved back, and DONE work stays reachable", async () => {
    const repo = makeGitRepo(env);
    const root = git(repo, "rev-parse", "HEAD");
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    const a = await doTask(ws, "A", { "a.txt": "A\n" });
    expect(a.merged.ok).toBe(true);
    const done = git(repo, "rev-parse", ws.integrationBranch);
    // The agent of task B moves the integration branch back to the root commit from its worktree.
    const b = await ws.prepare(task("B"), { reuse: false });
    git(b.dir, "branch", "-f", ws.integrationBranch, root);
    writeFileSync(join(b.dir, "b.txt"), "B\n");
    await ws.commitLeftovers(b.dir, task("B"));
    const merged = await ws.integrate(task("B"));
    expect(merged).toMatchObject({
      ok: false,
      reason: "integration_failed",
      step: "check integration branch",
    });
    expect(merged.ok === false && "output_tail" in merged ? merged.output_tail : "").toContain(
      `git update-ref refs/heads/${ws.integrationBranch} ${done}`,
    );
    expect(git(repo, "rev-parse", `refs/whilly/tips/${ws.integrationBranch}`)).toBe(done);
    // A new task still starts from whilly's tip, with A's work.
    const c = await ws.prepare(task("C"), { reuse: false });
    expect(c.base).toBe(done);
    expect(existsSync(join(c.dir, "a.txt"))).toBe(true);
  });

  it("two runs of one plan merge in turn, each onto the other's merge", async () => {
    const repo = makeGitRepo(env);
    const one = await openWorkspaces({ repoDir: repo, planId: "p", env, lockPollMs: 5 });
    const two = await openWorkspaces({ repoDir: repo, planId: "p", env, lockPollMs: 5 });
    const a1 = await one.prepare(task("A"), { reuse: false });
    const b2 = await two.prepare(task("B"), { reuse: false });
    writeFileSync(join(a1.dir, "a.txt"), "A\n");
    writeFileSync(join(b2.dir, "b.txt"), "B\n");
    await one.commitLeftovers(a1.dir, task("A"));
    await two.commitLeftovers(b2.dir, task("B"));
    const [ma, mb] = await Promise.all([one.integrate(task("A")), two.integrate(task("B"))]);
    expect(ma.ok).toBe(true);
    expect(mb.ok).toBe(true);
    const files = git(repo, "ls-tree", "--name-only", one.integrationBranch).split("\n");
    expect(files).toEqual(expect.arrayContaining(["a.txt", "b.txt"]));
    expect(existsSync(join(repo, ".whilly", "worktrees", "p", "_integration.lock"))).toBe(false);
  });

  it("takes over a lock left by a process that is gone", async () => {
    const repo = makeGitRepo(env);
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env, lockPollMs: 5 });
    const gone = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const a = await ws.prepare(task("A"), { reuse: false });
    writeFileSync(
      join(repo, ".whilly", "worktrees", "p", "_integration.lock"),
      JSON.stringify({ pid: Number(gone), startTime: 1 }),
    );
    writeFileSync(join(a.dir, "a.txt"), "A\n");
    await ws.commitLeftovers(a.dir, task("A"));
    expect((await ws.integrate(task("A"))).ok).toBe(true);
  });
});

describe("--branch", () => {
  it("refuses a branch checked out in another worktree, naming it", async () => {
    const repo = makeGitRepo(env);
    git(repo, "branch", "feature");
    const other = join(scratch(), "other");
    git(repo, "worktree", "add", "-q", other, "feature");
    const opening = openWorkspaces({ repoDir: repo, planId: "p", branch: "feature", env });
    await expect(opening).rejects.toThrow(/--branch 'feature' is checked out in the worktree/);
    await expect(opening).rejects.toMatchObject({ hint: expect.stringContaining("switch --detach") });
  });

  it("refuses an existing branch whilly did not make for this plan, and resumes its own", async () => {
    const repo = makeGitRepo(env);
    git(repo, "branch", "feature");
    await expect(openWorkspaces({ repoDir: repo, planId: "p", branch: "feature", env })).rejects.toThrow(
      /--branch 'feature' already exists and was not made by whilly/,
    );
    const first = await openWorkspaces({ repoDir: repo, planId: "p", branch: "mine", env });
    expect(first.resumed).toBe(false);
    expect(git(repo, "config", "branch.mine.whillyPlan")).toBe("p");
    expect((await openWorkspaces({ repoDir: repo, planId: "p", branch: "mine", env })).resumed).toBe(true);
    await expect(openWorkspaces({ repoDir: repo, planId: "q", branch: "mine", env })).rejects.toThrow(
      /another plan \(p\)/,
    );
  });

  it("refuses a resumed branch moved back behind whilly's tip", async () => {
    const repo = makeGitRepo(env);
    const root = git(repo, "rev-parse", "HEAD");
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    const a = await ws.prepare(task("A"), { reuse: false });
    writeFileSync(join(a.dir, "a.txt"), "A\n");
    await ws.commitLeftovers(a.dir, task("A"));
    expect((await ws.integrate(task("A"))).ok).toBe(true);
    git(repo, "branch", "-f", ws.integrationBranch, root);
    await expect(openWorkspaces({ repoDir: repo, planId: "p", env })).rejects.toThrow(/moved outside whilly/);
  });

  it.each([
    ["@", /not a valid git branch name/],
    ["@{-1}", /not a valid git branch name/],
    ["-x", /not a valid git branch name/],
    ["refs/heads/x", /full ref name.*|--branch x/],
    ["whilly-tasks/p/a", /under whilly-tasks\//],
    ["a..b", /not a valid git branch name/],
  ])("refuses --branch %s with the fix", async (branch, message) => {
    const repo = makeGitRepo(env);
    const opening = openWorkspaces({ repoDir: repo, planId: "p", branch, env });
    await expect(opening).rejects.toThrow(message);
    await expect(opening).rejects.toThrow(/--branch/);
  });
});
