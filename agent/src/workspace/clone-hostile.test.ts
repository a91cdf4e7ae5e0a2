import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { join } from "node:path";
import type { DependencyWork } from "@whilly/core";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { type CloneWorkspaces, openCloneWorkspaces } from "./clone.js";
import { WorkspaceUnavailable } from "./faults.js";
import { gitIn, isolatedGitEnv, removeScratch } from "./testing/git-repo.js";
import { originWithClones } from "./testing/origin.js";

// A remote worker's clone against what it should not trust: an agent that installs hooks or breaks its
// worktree, a control plane that names no branch, a remote that never answers.
afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const task = (id: string) => ({ id, description: `do ${id}` });

function open(repoDir: string, options: { push?: boolean } = {}) {
  return openCloneWorkspaces({ repoDir, planId: "plan", remote: "origin", push: options.push ?? false, env });
}

/** Runs a task as the pipeline does: its worktree, files written, committed, delivered. */
async function doTask(
  ws: CloneWorkspaces,
  id: string,
  files: Record<string, string>,
): Promise<DependencyWork> {
  const { dir } = await ws.prepare(task(id), { reuse: false });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  const { work } = await ws.commitLeftovers(dir, task(id));
  await ws.delivery.deliver(task(id), work, {});
  return { taskId: id, ...work };
}

/** Client-side hooks git runs for the commands a worker uses. */
const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-merge-commit",
  "post-merge",
  "post-checkout",
  "reference-transaction",
  "pre-push",
  "pre-auto-gc",
];

describe("dependency work a control plane sends", () => {
  it.each([
    ["x:refs/heads/main", "1".repeat(40)],
    ["--upload-pack=touch pwned", "1".repeat(40)],
    ["refs/heads/*", "1".repeat(40)],
    ["whilly-tasks/plan/a", "HEAD"],
  ])("refuses dependency work %j %j a control plane sent, fetching nothing", async (branch, commit) => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const ws = await open(clone);
    const refs = git(clone, "for-each-ref");
    const preparing = ws.prepare(task("b"), {
      reuse: false,
      dependencyWork: [{ taskId: "a", branch, commit }],
    });
    await expect(preparing).rejects.toBeInstanceOf(WorkspaceUnavailable);
    await expect(preparing).rejects.toThrow(
      /^the claim names work of dependency a that is no git branch and commit/,
    );
    expect(git(clone, "for-each-ref")).toBe(refs);
    expect(existsSync(join(clone, "pwned"))).toBe(false);
  });
});

describe("a remote that never answers", () => {
  it("stops a fetch from a remote that never answers at the network limit, or when told, helpers and all", async () => {
    const sockets: Socket[] = [];
    const closed: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.resume().on("close", () => closed.push(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { clones } = originWithClones(env, 1);
      const clone = clones[0] ?? "";
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hangs.git`;
      git(clone, "remote", "set-url", "origin", url);
      const ws = await openCloneWorkspaces({
        repoDir: clone,
        planId: "plan",
        remote: "origin",
        push: true,
        env,
        networkTimeoutMs: 500,
      });
      const dependencyWork = [{ taskId: "a", branch: "whilly-tasks/plan/a", commit: "1".repeat(40) }];
      const timedOut = ws.prepare(task("b"), { reuse: false, dependencyWork });
      await expect(timedOut).rejects.toBeInstanceOf(WorkspaceUnavailable);
      await expect(timedOut).rejects.toThrow(/stopped after 500 ms$/);
      const stop = new AbortController();
      const stopping = ws.prepare(task("b"), { reuse: false, dependencyWork, signal: stop.signal });
      while (sockets.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      stop.abort();
      await expect(stopping).rejects.toThrow(/stopped: the worker is stopping$/);
      // git's HTTP helper went with it: the remote's connections are closed.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(closed).toHaveLength(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});

describe("hooks an agent installs in the clone", () => {
  it("never run in the worker's own git: its commit, push, fetch, worktree and dependency merges", async () => {
    const { clones } = originWithClones(env, 2);
    const [one, two] = [
      await open(clones[0] ?? "", { push: true }),
      await open(clones[1] ?? "", { push: true }),
    ];
    const log = join(clones[0] ?? "", "..", "hooks.log");
    const { dir } = await one.prepare(task("a"), { reuse: false });
    // The agent, in its worktree: hooks in the clone's hooks directory and a hooksPath of its own (as
    // husky does), each logging and failing; an fsmonitor command too.
    const common = git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir");
    const own = join(dir, ".hooks");
    mkdirSync(own);
    for (const hooks of [join(common, "hooks"), own]) {
      mkdirSync(hooks, { recursive: true });
      for (const hook of HOOKS) {
        writeFileSync(join(hooks, hook), `#!/bin/sh\necho "${hook} $SSH_AUTH_SOCK" >> '${log}'\nexit 1\n`);
        chmodSync(join(hooks, hook), 0o755);
      }
    }
    git(dir, "config", "core.hooksPath", own);
    git(dir, "config", "core.fsmonitor", `echo fsmonitor >> '${log}'; false`);
    writeFileSync(join(dir, "a.txt"), "A\n");
    const { work } = await one.commitLeftovers(dir, task("a"));
    await one.delivery.deliver(task("a"), work, {});
    await one.remove(task("a"));
    const c = await doTask(one, "c", { "c.txt": "C\n" });
    await one.prepare(task("b"), { reuse: false, dependencyWork: [{ taskId: "a", ...work }, c] });
    // The same clone's hooks directory, met by another clone's worker through a fetch and merge.
    await two.prepare(task("b"), { reuse: false, dependencyWork: [{ taskId: "a", ...work }, c] });
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  });
});

describe("an agent that breaks its worktree's link to the clone", () => {
  it.each([
    ["deletes its .git", (dir: string) => rmSync(join(dir, ".git"))],
    [
      "makes a repository of its own",
      (dir: string) => {
        rmSync(join(dir, ".git"));
        git(dir, "init", "-q");
      },
    ],
  ])(
    "%s: nothing is committed in the clone's own tree, and the commit fails naming the worktree",
    async (_name, breakIt) => {
      const { clones } = originWithClones(env, 1);
      const clone = clones[0] ?? "";
      const ws = await open(clone, { push: true });
      const { dir } = await ws.prepare(task("a"), { reuse: false });
      writeFileSync(join(clone, "README.md"), "the user's own edit, not committed\n");
      const head = git(clone, "rev-parse", "HEAD");
      writeFileSync(join(dir, "a.txt"), "A\n");
      breakIt(dir);
      const error = await ws.commitLeftovers(dir, task("a")).catch((e) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toBe(
        `the task's worktree ${dir} is no longer a worktree of ${clone} (its .git was removed or replaced): nothing was committed`,
      );
      expect(git(clone, "rev-parse", "HEAD")).toBe(head);
      expect(git(clone, "status", "--porcelain")).toBe("M README.md");
    },
  );
});
