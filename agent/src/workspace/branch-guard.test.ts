import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitIn, isolatedGitEnv, makeGitRepo, removeScratch } from "./testing/git-repo.js";
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
