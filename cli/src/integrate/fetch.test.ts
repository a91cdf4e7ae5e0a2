import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAll, scratchDir } from "../../../test/support/cli.js";
import { git } from "../../../test/support/integrate.js";
import { fetchWork } from "./fetch.js";
import { openTarget } from "./target.js";

afterAll(removeAll);

/** An origin whose branch `x` holds a commit the user's clone lacks. */
function cloneMissingX() {
  const home = scratchDir("whilly-home-");
  const config = join(home, "gitconfig");
  writeFileSync(config, "[init]\n\tdefaultBranch = main\n[user]\n\tname = T\n\temail = t@example.com\n");
  const env = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: "1" };
  const origin = join(scratchDir("whilly-origin-"), "origin.git");
  git(env, dirname(origin), "init", "-q", "--bare", origin);
  const worker = join(scratchDir("whilly-worker-"), "clone");
  git(env, dirname(worker), "clone", "-q", origin, worker);
  git(env, worker, "commit", "-q", "--allow-empty", "-m", "init");
  git(env, worker, "push", "-q", "origin", "HEAD:refs/heads/main");
  const user = join(scratchDir("whilly-user-"), "clone");
  git(env, dirname(user), "clone", "-q", origin, user);
  git(env, worker, "commit", "-q", "--allow-empty", "-m", "work");
  git(env, worker, "push", "-q", "origin", "HEAD:refs/heads/x");
  return { env, user, commit: git(env, worker, "rev-parse", "HEAD") };
}

const refs = (env: Record<string, string | undefined>, dir: string) =>
  execFileSync("git", ["for-each-ref", "--format=%(refname)"], { cwd: dir, env, encoding: "utf8" });

describe("fetchWork and a recorded branch that is no branch name", () => {
  it.each(["x:refs/heads/whilly/p", "x:refs/whilly/verified/whilly/p", "*", "x:"])(
    "refuses %j before fetching, and writes no ref of the clone",
    async (branch) => {
      const { env, user, commit } = cloneMissingX();
      const target = await openTarget({
        repoDir: user,
        branch: "whilly/p",
        branchFlag: undefined,
        remote: "origin",
        env,
      });
      const before = refs(env, user);
      const fetched = await fetchWork(target, { branch, commit });
      expect(fetched).toMatchObject({ ok: false });
      expect(fetched.ok ? "" : fetched.message).toContain(
        `the recorded branch ${JSON.stringify(branch)} is not a git branch name`,
      );
      expect(refs(env, user)).toBe(before);
    },
  );
});
