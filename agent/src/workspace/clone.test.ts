import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { join } from "node:path";
import type { DependencyWork } from "@whilly/core";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { type CloneWorkspaces, openCloneWorkspaces } from "./clone.js";
import { DependencyConflict, WorkspaceUnavailable } from "./faults.js";
import { gitIn, isolatedGitEnv, removeScratch } from "./testing/git-repo.js";
import { originWithClones } from "./testing/origin.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const task = (id: string) => ({ id, description: `do ${id}` });

function open(repoDir: string, options: { push?: boolean; remote?: string; secrets?: string[] } = {}) {
  return openCloneWorkspaces({
    repoDir,
    planId: "plan",
    remote: options.remote ?? "origin",
    push: options.push ?? false,
    env,
    secrets: options.secrets,
  });
}

/** Runs a task as the pipeline does: its worktree, files written, committed, delivered. */
async function doTask(
  ws: CloneWorkspaces,
  id: string,
  files: Record<string, string>,
  dependencyWork: readonly DependencyWork[] = [],
): Promise<DependencyWork> {
  const { dir } = await ws.prepare(task(id), { reuse: false, dependencyWork });
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

const isAncestor = (dir: string, commit: string, of: string) =>
  spawnSync("git", ["merge-base", "--is-ancestor", commit, of], { cwd: dir, env }).status === 0;
const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");

describe("a remote worker's worktree base", () => {
  it("starts from the clone's HEAD when it opened, with no integration branch", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const head = git(clone, "rev-parse", "HEAD");
    const ws = await open(clone);
    expect(ws.startCommit).toBe(head);
    const prepared = await ws.prepare(task("a"), { reuse: false });
    expect(prepared).toMatchObject({ base: head, reused: false, branch: "whilly-tasks/plan/a" });
    expect(git(clone, "branch", "--list", "whilly/*")).toBe("");
    expect(git(clone, "status", "--porcelain")).toBe("");
  });

  it("holds a dependency's work already in the clone, merged in without a fetch", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const ws = await open(clone, { remote: "nowhere" });
    const a = await doTask(ws, "a", { "a.txt": "from A\n" });
    const b = await ws.prepare(task("b"), { reuse: false, dependencyWork: [a] });
    expect(read(b.dir, "a.txt")).toBe("from A\n");
    expect(b.base).toBe(a.commit);
  });

  it("fetches a dependency's branch another clone pushed, and merges several dependencies in order", async () => {
    const { origin, clones } = originWithClones(env, 2);
    const [one, two] = [
      await open(clones[0] ?? "", { push: true }),
      await open(clones[1] ?? "", { push: true }),
    ];
    const a = await doTask(one, "a", { "a.txt": "from A\n" });
    expect(git(origin, "rev-parse", "refs/heads/whilly-tasks/plan/a")).toBe(a.commit);
    const c = await doTask(two, "c", { "c.txt": "from C\n" });
    const b = await two.prepare(task("b"), { reuse: false, dependencyWork: [a, c] });
    expect(read(b.dir, "a.txt")).toBe("from A\n");
    expect(read(b.dir, "c.txt")).toBe("from C\n");
    expect(isAncestor(b.dir, a.commit, "HEAD")).toBe(true);
    expect(git(b.dir, "log", "-1", "--format=%s")).toBe("whilly: merge c into the base of b");
  });

  it("is a machine fault when a dependency's branch cannot be fetched, or no longer holds its commit", async () => {
    const { clones } = originWithClones(env, 2);
    const one = await open(clones[0] ?? "");
    const two = await open(clones[1] ?? "");
    const unpushed = await doTask(one, "a", { "a.txt": "A\n" });
    const noRemote = await open(clones[1] ?? "", { remote: "upstream" });
    await expect(noRemote.prepare(task("b"), { reuse: false, dependencyWork: [unpushed] })).rejects.toThrow(
      /is not in this clone, which has no remote 'upstream'/,
    );
    const fetching = two.prepare(task("b"), { reuse: false, dependencyWork: [unpushed] });
    await expect(fetching).rejects.toBeInstanceOf(WorkspaceUnavailable);
    await expect(fetching).rejects.toThrow(
      /^cannot fetch whilly-tasks\/plan\/a \(the work of dependency a\) from origin: /,
    );
    // The branch is on origin, but at other work than the claim names (pushed over since).
    git(clones[0] ?? "", "push", "-q", "origin", `${unpushed.commit}:refs/heads/whilly-tasks/plan/a`);
    const moved = { ...unpushed, commit: "0".repeat(40) };
    await expect(two.prepare(task("b"), { reuse: false, dependencyWork: [moved] })).rejects.toThrow(
      `origin's branch whilly-tasks/plan/a does not hold commit 000000000000, the work of dependency a`,
    );
  });

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

  it("fails with the files when two dependencies' work conflicts, leaving no worktree behind", async () => {
    const { clones } = originWithClones(env, 1, { "shared.txt": "line\n" });
    const clone = clones[0] ?? "";
    const ws = await open(clone);
    const a = await doTask(ws, "a", { "shared.txt": "line from A\n" });
    const c = await doTask(ws, "c", { "shared.txt": "line from C\n" });
    const error = await ws.prepare(task("b"), { reuse: false, dependencyWork: [a, c] }).catch((e) => e);
    expect(error).toBeInstanceOf(DependencyConflict);
    expect(error).toMatchObject({ files: ["shared.txt"], dependency: { taskId: "c" } });
    expect(existsSync(ws.keptPaths(task("b")).dir)).toBe(false);
  });

  it("is a machine fault, not the task's, when its branch is checked out in another tree of the clone", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const ws = await open(clone);
    await doTask(ws, "a", { "a.txt": "A\n" });
    await ws.remove(task("a"));
    // The user looks at the task's work in their own tree; the task is run again.
    git(clone, "checkout", "-q", "whilly-tasks/plan/a");
    const error = await ws.prepare(task("a"), { reuse: false }).catch((e) => e);
    expect(error).toBeInstanceOf(WorkspaceUnavailable);
    expect(error.message).toBe(
      `the task's branch whilly-tasks/plan/a is checked out in ${clone}, so the task's worktree cannot have it`,
    );
    expect(error.hint).toBe(
      `switch that tree to another branch (git -C ${clone} switch --detach); the task's work stays on its branch`,
    );
    git(clone, "switch", "-q", "-");
    await expect(ws.prepare(task("a"), { reuse: false })).resolves.toMatchObject({ reused: false });
  });

  it("keeps a retry's worktree only while it holds every dependency's commit", async () => {
    const { clones } = originWithClones(env, 1);
    const ws = await open(clones[0] ?? "");
    const a = await doTask(ws, "a", { "a.txt": "A\n" });
    const first = await ws.prepare(task("b"), { reuse: false, dependencyWork: [a] });
    writeFileSync(join(first.dir, "draft.txt"), "work in progress\n");
    const kept = await ws.prepare(task("b"), { reuse: true, dependencyWork: [a] });
    expect(kept).toMatchObject({ reused: true, base: a.commit });
    const c = await doTask(ws, "c", { "c.txt": "C\n" });
    const fresh = await ws.prepare(task("b"), { reuse: true, dependencyWork: [a, c] });
    expect(fresh.reused).toBe(false);
    expect(existsSync(join(fresh.dir, "draft.txt"))).toBe(false);
    expect(read(fresh.dir, "c.txt")).toBe("C\n");
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

describe("a remote worker's delivery", () => {
  it("pushes the task's commit to its branch on origin, forced when the task is run again", async () => {
    const { origin, clones } = originWithClones(env, 2);
    const one = await open(clones[0] ?? "", { push: true });
    expect(one.delivery.phase).toBe("push");
    const first = await doTask(one, "a", { "a.txt": "first\n" });
    expect(git(origin, "rev-parse", "refs/heads/whilly-tasks/plan/a")).toBe(first.commit);
    // Run again elsewhere after a reset: other work, not a descendant of the first.
    const two = await open(clones[1] ?? "", { push: true });
    const again = await doTask(two, "a", { "a.txt": "second\n" });
    expect(isAncestor(origin, first.commit, again.commit)).toBe(false);
    expect(git(origin, "rev-parse", "refs/heads/whilly-tasks/plan/a")).toBe(again.commit);
    expect(git(origin, "show", `${again.commit}:a.txt`)).toBe("second");
  });

  it("keeps the work in the clone without --push", async () => {
    const { origin, clones } = originWithClones(env, 1);
    const ws = await open(clones[0] ?? "");
    expect(ws.delivery.phase).toBeUndefined();
    const a = await doTask(ws, "a", { "a.txt": "A\n" });
    expect(git(clones[0] ?? "", "rev-parse", "whilly-tasks/plan/a")).toBe(a.commit);
    expect(git(origin, "branch", "--list", "whilly-tasks/*")).toBe("");
  });

  it("is a machine fault when the push fails, with the remote URL's password hidden", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const password = "pa55word-of-the-remote";
    git(clone, "remote", "set-url", "origin", `http://worker:${password}@127.0.0.1:9/nothing.git`);
    const ws = await open(clone, { push: true });
    expect(ws.remoteSecrets).toContain(password);
    const { dir } = await ws.prepare(task("a"), { reuse: false });
    writeFileSync(join(dir, "a.txt"), "A\n");
    const { work } = await ws.commitLeftovers(dir, task("a"));
    const error = await ws.delivery.deliver(task("a"), work, {}).catch((e) => e);
    expect(error).toBeInstanceOf(WorkspaceUnavailable);
    expect(error.message).toMatch(/^cannot push whilly-tasks\/plan\/a to origin: /);
    expect(error.message).not.toContain(password);
    expect(error.hint).toContain("git -C");
  });

  it("refuses --push for a remote the clone does not have", async () => {
    const { clones } = originWithClones(env, 1);
    const opening = open(clones[0] ?? "", { push: true, remote: "upstream" });
    await expect(opening).rejects.toBeInstanceOf(ConfigurationError);
    await expect(opening).rejects.toThrow(/^--push: the clone at .* has no remote 'upstream'$/);
  });
});
