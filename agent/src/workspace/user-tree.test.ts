import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedGitEnv, makeGitRepo, removeScratch } from "./testing/git-repo.js";
import { openWorkspaces } from "./workspaces.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const task = { id: "T", description: "do T" };

describe("the user's own working tree", () => {
  it("reports what an agent wrote outside its worktree, and not what was there before", async () => {
    const repo = makeGitRepo(env, { files: { "README.md": "hi\n", "notes.md": "mine\n" } });
    writeFileSync(join(repo, "plan.json"), "{}\n");
    writeFileSync(join(repo, "notes.md"), "mine, edited\n");
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    const { dir } = await ws.prepare(task, { reuse: false });
    writeFileSync(join(dir, "..", "..", "..", "..", "ESCAPED.txt"), "pwned\n");
    writeFileSync(join(dir, "..", "..", "..", "..", "notes.md"), "overwritten\n");
    writeFileSync(join(dir, "work.txt"), "work\n");
    await ws.commitLeftovers(dir, task);
    expect((await ws.integrate(task)).ok).toBe(true);
    const end = await ws.finish();
    expect(end.userTreeChanged).toEqual(["ESCAPED.txt", "notes.md"]);
  });

  it("reports nothing when only worktrees were written", async () => {
    const repo = makeGitRepo(env);
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    const { dir } = await ws.prepare(task, { reuse: false });
    writeFileSync(join(dir, "work.txt"), "work\n");
    await ws.commitLeftovers(dir, task);
    await ws.integrate(task);
    expect(await ws.finish()).toMatchObject({ fastForwarded: true, userTreeChanged: [] });
  });
});
