import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, makeStoreTemplate, removeAll, runCli, scratchDir } from "../../../../test/support/cli.js";
import { git, makeClones } from "../../../../test/support/integrate.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly plan integrate: flags and configuration (exit 2)", () => {
  it.each([
    [
      ["--verify-timeout", "soon"],
      "error: --verify-timeout must be a duration like 90s, 30m or 1h; got 'soon'",
    ],
    [["--verify-timeout", "0"], "error: --verify-timeout must be longer than 0; got '0'"],
    [["--into", ""], "error: --into is empty"],
    [["--remote=--upload-pack=x"], "error: --remote '--upload-pack=x' is not a remote name"],
    [["--repo", "a", "--repo", "b"], "error: --repo was given 2 times; give it once"],
  ])("refuses %j naming the flag before it looks at git or the store", async (flags, message) => {
    const dir = scratchDir("whilly-nogit-");
    const result = await runCli(["plan", "integrate", "p", ...flags], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.err.split("\n")[0]).toBe(message);
    expect(existsSync(join(dir, ".whilly"))).toBe(false);
  });

  it.each([
    ["bad..name", "is not a valid git branch name"],
    ["-x", "is not a valid git branch name"],
    ["@{-1}", "is not a valid git branch name"],
    ["refs/heads/all", "names a ref, not a branch"],
    ["whilly-tasks/p/a", "is under whilly-tasks/"],
  ])("refuses --into %s before the store is opened", async (branch, why) => {
    const repo = makeRepo();
    const result = await runCli(["plan", "integrate", "p", `--into=${branch}`], { cwd: repo });
    expect(result.code).toBe(2);
    expect(result.err).toContain(`error: --into '${branch}' ${why}`);
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });

  it("refuses a directory outside git, a --repo that does not exist, and a repository with no commit", async () => {
    const dir = scratchDir("whilly-nogit-");
    const outside = await runCli(["plan", "integrate", "p"], { cwd: dir });
    expect(outside).toMatchObject({ code: 2 });
    expect(outside.err).toContain(`error: ${dir} is not inside a git repository`);
    const missing = await runCli(["plan", "integrate", "p", "--repo", "nowhere"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`error: ${join(dir, "nowhere")} does not exist`);
    git({ PATH: process.env.PATH }, dir, "init", "-q");
    const empty = await runCli(["plan", "integrate", "p"], { cwd: dir });
    expect(empty.code).toBe(2);
    expect(empty.err).toContain("has no commit yet");
  });

  it("refuses an unknown plan, a missing remote, and a branch checked out in the user's tree", async () => {
    const c = makeClones(template);
    const unknown = await c.whilly("plan", "integrate", "nope");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("error: plan 'nope' not found");

    const push = await c.whilly("plan", "integrate", "nope", "--push", "--remote", "upstream");
    expect(push.code).toBe(2);
    expect(push.err).toContain("has no remote 'upstream' (--push pushes the branch there)");
    expect(push.err).toContain(`git -C ${c.user} remote add upstream URL`);
    expect(push.err).not.toContain("origin");

    const mine = await c.whilly("plan", "integrate", "nope", "--into", "main");
    expect(mine.code).toBe(2);
    expect(mine.err).toContain(`error: the branch main is checked out in ${c.user}`);

    // A task's commit that is not in the clone needs the remote to fetch it from.
    await c.importPlan([{ id: "A" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    git(c.env, c.user, "remote", "remove", "origin");
    const noOrigin = await c.whilly("plan", "integrate", "p");
    expect(noOrigin.code).toBe(2);
    expect(noOrigin.err).toContain("has no remote 'origin' (to fetch the work of task A)");
  });
});
