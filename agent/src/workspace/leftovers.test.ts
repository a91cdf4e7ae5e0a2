import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitIn, isolatedGitEnv, makeGitRepo, removeScratch } from "./testing/git-repo.js";
import { openWorkspaces } from "./workspaces.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const task = { id: "T", description: "do T" };

describe("commitLeftovers", () => {
  it("commits a file setup made once the agent wrote its work into it; unchanged setup files stay out", async () => {
    const repo = makeGitRepo(env);
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
    const { dir } = await ws.prepare(task, { reuse: false });
    writeFileSync(join(dir, "config.local"), "made by setup\n");
    writeFileSync(join(dir, "untouched.local"), "made by setup\n");
    mkdirSync(join(dir, "cache"));
    writeFileSync(join(dir, "cache", "a"), "setup\n");
    await ws.recordSetup(dir);
    writeFileSync(join(dir, "config.local"), "the agent's work\n");
    writeFileSync(join(dir, "cache", "b"), "a cache file\n");
    const { commit } = await ws.commitLeftovers(dir, task);
    expect(commit).toBeDefined();
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("config.local");
    expect((await ws.integrate(task)).ok).toBe(true);
    expect(git(repo, "show", `${ws.integrationBranch}:config.local`)).toBe("the agent's work");
  });

  it("leaves out a file over the size limit and reports it", async () => {
    const repo = makeGitRepo(env);
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env, maxFileBytes: 1000 });
    const { dir } = await ws.prepare(task, { reuse: false });
    writeFileSync(join(dir, "big.bin"), Buffer.alloc(1001));
    writeFileSync(join(dir, "small.txt"), "ok\n");
    const result = await ws.commitLeftovers(dir, task);
    expect(result.tooLarge).toEqual([{ path: "big.bin", bytes: 1001 }]);
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("small.txt");
  });
});
