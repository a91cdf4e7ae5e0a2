import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll } from "../../../../test/support/cli.js";
import { type Clones, git, makeClones } from "../../../../test/support/integrate.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** What a run may leave in the user's clone for `branch`: the branch, its plan mark, refs and worktrees. */
function leftovers(c: Clones, branch: string): string[] {
  const refs = git(c.env, c.user, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/whilly");
  const config = git(c.env, c.user, "config", "--list").split("\n");
  return [
    ...refs.split("\n").filter((ref) => ref.includes(branch)),
    ...config.filter((line) => line.startsWith(`branch.${branch}.`)),
    ...git(c.env, c.user, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => line.startsWith("worktree ") && line.includes(".whilly")),
  ];
}

/** Runs one `next` step of a stop as the user would paste it into a shell. */
function follow(c: Clones, step: string): void {
  const command = step.slice(step.indexOf(": ") + 2);
  execFileSync("sh", ["-c", command], { cwd: c.user, env: c.env as NodeJS.ProcessEnv, stdio: "pipe" });
}

describe("whilly plan integrate: stops and what they leave", () => {
  it("with no DONE task, says there is nothing to integrate and makes no branch (exit 0, --push too)", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "P" }, { id: "Q" }]);
    const text = await c.whilly("plan", "integrate", "p", "--push");
    expect(text.code, text.err).toBe(0);
    expect(text.out).toBe(
      "plan p → whilly/p\n  not DONE, not integrated: P (PENDING), Q (PENDING)\nnothing to integrate: no task of plan 'p' is DONE\n",
    );
    const json = await c.whilly("plan", "integrate", "p", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ status: "nothing_to_integrate", created: false, tip: null });
    expect(leftovers(c, "whilly/p")).toEqual([]);
    expect(git(c.env, c.origin, "branch", "--list", "whilly/p")).toBe("");
  });

  it("a fetch that fails before anything is merged leaves no branch; its hint names the worker's --push", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B", dependencies: ["A"] }]);
    const a = c.work("A", { "a.txt": "a\n" });
    const b = c.work("B", { "b.txt": "b\n" }, a.commit);
    // A worker without --push: its branches never reached origin.
    git(c.env, c.worker, "push", "-q", "origin", "--delete", a.branch, b.branch);
    await c.finish({ A: a, B: b });

    const stopped = await c.whilly("plan", "integrate", "p", "--json");
    expect(stopped.code).toBe(1);
    const report = JSON.parse(stopped.out);
    expect(report).toMatchObject({
      status: "stopped",
      created: false,
      tip: null,
      worktree: null,
      not_merged: ["A", "B"],
      stopped: { reason: "fetch_failed", task_id: "A" },
    });
    const next = report.stopped.next.join("\n");
    expect(next).toContain("whilly-worker --push");
    expect(next).toContain(`git -C ${c.user} ls-remote origin ${a.branch}`);
    expect(leftovers(c, "whilly/p")).toEqual([]);

    // main moves on meanwhile; once the work is pushed, the branch starts from where HEAD is now.
    writeFileSync(join(c.user, "later.txt"), "later\n");
    git(c.env, c.user, "add", "later.txt");
    git(c.env, c.user, "commit", "-q", "-m", "later");
    git(
      c.env,
      c.worker,
      "push",
      "-q",
      "origin",
      `${a.commit}:refs/heads/${a.branch}`,
      `${b.commit}:refs/heads/${b.branch}`,
    );
    const done = await c.whilly("plan", "integrate", "p", "--json");
    expect(done.code, done.out).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({ created: true, created_from: "HEAD", merged: [{}, {}] });
    expect(
      git(c.env, c.user, "log", "--first-parent", "--format=%s", "whilly/p").split("\n").slice(-3),
    ).toEqual(["whilly: merge A (plan p)", "later", "init"]);
  });

  it("with --push, a remote it cannot reach stops before anything is made", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }]);
    const a = c.work("A", { "a.txt": "a\n" });
    await c.finish({ A: a });
    git(c.env, c.user, "remote", "set-url", "origin", join(c.origin, "..", "gone.git"));
    const result = await c.whilly("plan", "integrate", "p", "--push", "--json");
    expect(result.code).toBe(1);
    const { stopped } = JSON.parse(result.out);
    expect(stopped).toMatchObject({ reason: "fetch_failed", task_id: null });
    expect(stopped.message).toContain("could not look up whilly/p on origin");
    expect(stopped.next[0]).toContain(`git -C ${c.user} ls-remote origin whilly/p`);
    expect(leftovers(c, "whilly/p")).toEqual([]);
  });

  it("a verify failure's hints fix on top or abandon the integration; abandoning leaves nothing behind", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }], { verify: ["test ! -f bad.txt"] });
    const a = c.work("A", { "bad.txt": "x\n" });
    await c.finish({ A: a });

    const stopped = await c.whilly("plan", "integrate", "p", "--json");
    expect(stopped.code).toBe(1);
    const { stopped: stop, worktree } = JSON.parse(stopped.out);
    expect(stop.reason).toBe("verify_failed");
    expect(stop.next.join("\n")).not.toContain("reset --hard");
    expect(stop.next[0]).toContain(`fix it on top in ${worktree} and commit`);
    const abandon = stop.next.find((step: string) => step.startsWith("or abandon this integration"));
    expect(abandon).toBe(
      `or abandon this integration (removes the worktree and the branch): git -C ${c.user} worktree remove --force ${worktree} && git -C ${c.user} branch -D whilly/p && git -C ${c.user} update-ref -d refs/whilly/verified/whilly/p`,
    );
    follow(c, abandon);
    expect(leftovers(c, "whilly/p")).toEqual([]);
    expect(existsSync(worktree)).toBe(false);
  });

  it("a conflict's hints offer abandoning the integration rather than an abort the next run repeats", async () => {
    const c = makeClones(template);
    await c.importPlan([{ id: "A" }, { id: "B" }]);
    const a = c.work("A", { "README.md": "# by A\n" });
    const b = c.work("B", { "README.md": "# by B\n" });
    await c.finish({ A: a, B: b });

    const stopped = await c.whilly("plan", "integrate", "p", "--json");
    expect(stopped.code).toBe(1);
    const { stopped: stop } = JSON.parse(stopped.out);
    expect(stop.reason).toBe("merge_conflict");
    const abandon = stop.next.find((step: string) => step.startsWith("or abandon this integration"));
    expect(abandon).toContain("branch -D whilly/p");
    follow(c, abandon);
    expect(leftovers(c, "whilly/p")).toEqual([]);
  });
});
