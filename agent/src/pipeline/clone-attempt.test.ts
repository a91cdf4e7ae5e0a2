import { existsSync } from "node:fs";
import type { AttemptProgress, DependencyWork, TaskPayload } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { openCloneWorkspaces } from "../workspace/clone.js";
import { gitIn, isolatedGitEnv, removeScratch } from "../workspace/testing/git-repo.js";
import { originWithClones } from "../workspace/testing/origin.js";
import { createTaskAttempt } from "./task-attempt.js";
import { type FakeTurn, fakeAgent, taskPayload } from "./testing/fake-agent.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);

/** A remote worker's attempts in `clone`, with a fake agent; `--push` unless told otherwise. */
async function worker(clone: string, script: (task: TaskPayload, call: number) => FakeTurn, push = true) {
  const ws = await openCloneWorkspaces({ repoDir: clone, planId: "p", remote: "origin", push, env });
  const agent = fakeAgent(script);
  const attempt = createTaskAttempt({
    workspaces: ws,
    runAgent: agent.run,
    verifyTimeoutMs: 10_000,
    killGraceMs: 100,
    env,
    workerId: "w1",
  });
  const phases: (string | undefined)[] = [];
  const run = (
    task: TaskPayload,
    dependencyWork: readonly DependencyWork[] = [],
    holdsLease?: () => Promise<boolean>,
  ) =>
    attempt({
      task,
      plan: null,
      signal: new AbortController().signal,
      dependencyWork,
      onActivity: (p: AttemptProgress) => phases.push(p.phase),
      holdsLease,
    });
  return { ws, agent, run, phases };
}

const writes = (files: Record<string, string>) => () => ({ files });

describe("createTaskAttempt in a remote worker's clone", () => {
  it("pushes a DONE task's branch and reports it; a dependent on another clone starts with that work", async () => {
    const { origin, clones } = originWithClones(env, 2);
    const one = await worker(clones[0] ?? "", writes({ "a.txt": "from a\n" }));
    const a = await one.run(taskPayload("a", { test_steps: ["test -f a.txt"] }));
    expect(a).toMatchObject({ ok: true, verification: "passed", detail: { pushed_to: "origin" } });
    expect(a.work).toEqual({
      branch: "whilly-tasks/p/a",
      commit: git(origin, "rev-parse", "whilly-tasks/p/a"),
    });
    expect(one.phases).toEqual(["setup", "agent", "verify", "push"]);
    expect(existsSync(one.ws.keptPaths({ id: "a", description: "" }).dir)).toBe(false);

    const two = await worker(clones[1] ?? "", writes({ "b.txt": "from b\n" }));
    const dependency = { taskId: "a", ...(a.work ?? { branch: "", commit: "" }) };
    // The check passes only where the dependency's file is: in the worktree the agent worked in.
    const b = await two.run(taskPayload("b", { test_steps: ["test -f a.txt && test -f b.txt"] }), [
      dependency,
    ]);
    expect(b).toMatchObject({ ok: true, verification: "passed" });
    expect(git(origin, "show", `${b.work?.commit}:a.txt`)).toBe("from a");
  });

  it("hands back a task whose dependency's work cannot be fetched as a fault, before the agent runs", async () => {
    const { clones } = originWithClones(env, 1);
    const { agent, run } = await worker(clones[0] ?? "", writes({}));
    const missing = { taskId: "a", branch: "whilly-tasks/p/a", commit: "1".repeat(40) };
    const result = await run(taskPayload("b"), [missing]);
    expect(result).toMatchObject({ ok: false, reason: "workspace_unavailable", costMicroUsd: 0 });
    expect(result.fault?.message).toMatch(/^cannot fetch whilly-tasks\/p\/a \(the work of dependency a\)/);
    expect(result.fault?.hint).toContain("whilly-worker --push");
    expect(agent.calls).toEqual([]);
  });

  it("fails merge_conflict when the dependencies' work conflicts, naming the dependency, before the agent runs", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const { agent, run } = await worker(clone, (task) => ({ files: { "shared.txt": `from ${task.id}\n` } }));
    const a = await run(taskPayload("a"));
    const c = await run(taskPayload("c"));
    const deps = [a, c].map((r, i) => ({
      taskId: i === 0 ? "a" : "c",
      ...(r.work ?? { branch: "", commit: "" }),
    }));
    const result = await run(taskPayload("b"), deps);
    expect(result).toMatchObject({
      ok: false,
      reason: "merge_conflict",
      detail: { conflict_files: ["shared.txt"], conflicting_dependency: "c" },
      failure: { reason: "merge_conflict", step: "git merge whilly-tasks/p/c" },
    });
    expect(agent.calls.map((call) => call.taskId)).toEqual(["a", "c"]);
  });

  it("hands back a task whose push failed as a fault with the agent's cost, and continues in its kept worktree", async () => {
    const { clones } = originWithClones(env, 1);
    const clone = clones[0] ?? "";
    const origin = git(clone, "remote", "get-url", "origin");
    git(clone, "remote", "set-url", "origin", `${origin}-gone`);
    const { ws, agent, run } = await worker(clone, writes({ "a.txt": "a\n" }));
    const failed = await run(taskPayload("a"));
    expect(failed).toMatchObject({ ok: false, reason: "workspace_unavailable", costMicroUsd: 1000 });
    expect(failed.fault?.message).toMatch(/^cannot push whilly-tasks\/p\/a to origin: /);
    const kept = ws.keptPaths({ id: "a", description: "" }).dir;
    expect(existsSync(kept)).toBe(true);

    git(clone, "remote", "set-url", "origin", origin);
    const again = await run(taskPayload("a"));
    expect(again).toMatchObject({ ok: true, detail: { reused: true } });
    expect(agent.calls.map((call) => call.cwd)).toEqual([kept, kept]);
  });

  it("pushes nothing when the control plane says the task went to another worker meanwhile", async () => {
    const { origin, clones } = originWithClones(env, 1);
    const { run, phases } = await worker(clones[0] ?? "", writes({ "a.txt": "stale\n" }));
    const asked: string[] = [];
    const result = await run(taskPayload("a"), [], async () => {
      asked.push(phases.at(-1) ?? "");
      return false;
    });
    expect(asked).toEqual(["verify"]);
    expect(result).toMatchObject({
      ok: false,
      reason: "lease_lost",
      costMicroUsd: 1000,
      leaseLost: {
        message:
          "a was taken from this worker while it ran (an operator released it, or its lease ran out and another worker took it): its work was not published",
      },
    });
    expect(result.work).toBeUndefined();
    expect(git(origin, "branch", "--list", "whilly-tasks/*")).toBe("");
  });

  it("is a fault, pushing nothing, when the control plane cannot be asked", async () => {
    const { origin, clones } = originWithClones(env, 1);
    const { run } = await worker(clones[0] ?? "", writes({ "a.txt": "a\n" }));
    const result = await run(taskPayload("a"), [], async () => {
      throw new Error("connect ECONNREFUSED");
    });
    expect(result).toMatchObject({ ok: false, reason: "workspace_unavailable" });
    expect(result.fault?.message).toMatch(/^cannot ask the control plane whether a is still this worker's/);
    expect(git(origin, "branch", "--list", "whilly-tasks/*")).toBe("");
  });
});
