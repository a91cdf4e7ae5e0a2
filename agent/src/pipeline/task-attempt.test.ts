import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AttemptProgress, PlanPayload, TaskPayload } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentAttempt, RunAgent } from "../worker/types.js";
import { gitIn, isolatedGitEnv, makeGitRepo, removeScratch, scratch } from "../workspace/testing/git-repo.js";
import { openWorkspaces } from "../workspace/workspaces.js";
import type { TaskAttemptOptions } from "./options.js";
import { createTaskAttempt } from "./task-attempt.js";
import { type FakeTurn, fakeAgent, taskPayload } from "./testing/fake-agent.js";

afterAll(removeScratch);

const env = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(env, dir, ...args);
const plan = (fields: Partial<PlanPayload> = {}): PlanPayload => ({
  id: "p",
  name: "P",
  agent_instructions: {},
  ...fields,
});

async function pipeline(
  script: (task: TaskPayload, call: number) => FakeTurn,
  options: Partial<TaskAttemptOptions> & { files?: Record<string, string> } = {},
) {
  const repo = makeGitRepo(env, { files: options.files ?? { "README.md": "# p\n" } });
  const ws = await openWorkspaces({ repoDir: repo, planId: "p", env });
  const agent = fakeAgent(script);
  const attempt = createTaskAttempt({
    workspaces: ws,
    runAgent: agent.run,
    verifyTimeoutMs: 10_000,
    killGraceMs: 100,
    env,
    workerId: "w1",
    ...options,
  });
  const run = (
    task: TaskPayload,
    p: PlanPayload | null = plan(),
    onActivity?: (p: AttemptProgress) => void,
    signal = new AbortController().signal,
  ) => attempt({ task, plan: p, signal, onActivity });
  return { repo, ws, agent, run };
}

/** The claim of attempt 2 after `failed`, as the store hands it out. */
function retryOf(task: TaskPayload, failed: AgentAttempt, workerId = "w1"): TaskPayload {
  const previous = { ...failed.failure, attempt: 1, worker_id: workerId };
  return { ...task, attempts: 2, previous_failure: JSON.parse(JSON.stringify(previous)) };
}

describe("createTaskAttempt", () => {
  it("fails an agent that claims completion but wrote nothing, keeping its worktree", async () => {
    const { ws, run } = await pipeline(() => ({}));
    const task = taskPayload("T", { test_steps: ["test -f out.txt"] });
    const result = await run(task);
    expect(result).toMatchObject({ ok: false, reason: "verification_failed", costMicroUsd: 1000 });
    expect(result.failure).toMatchObject({
      reason: "verification_failed",
      step: "test -f out.txt",
      exit_code: 1,
    });
    expect(result.failure?.session_id).toBe("session-T-1");
    expect(result.detail).toMatchObject({
      agent_claimed: true,
      agent_reason: null,
      reason: "verification_failed",
      message: "check `test -f out.txt` failed (exit 1)",
    });
    expect(result.detail.checks).toEqual([
      { step: "test -f out.txt", kind: "run", source: "test_step", exit_code: 1, ms: expect.any(Number) },
    ]);
    expect(existsSync(ws.keptPaths(task).dir)).toBe(true);
  });

  it("accepts work the checks pass, merges it into the integration branch and removes the worktree", async () => {
    const phases: (string | undefined)[] = [];
    const { repo, ws, run } = await pipeline(() => ({
      files: { "out.txt": "done\n" },
      progress: { turns: 3 },
    }));
    const task = taskPayload("T", { test_steps: ["test -f out.txt"] });
    const result = await run(task, plan({ verify: ["grep -q done out.txt"] }), (p) => phases.push(p.phase));
    expect(result).toMatchObject({ ok: true, reason: undefined, verification: "passed" });
    expect(result.detail).toMatchObject({ verification: "passed", agent_claimed: true, ok: true });
    expect(git(repo, "show", `${ws.integrationBranch}:out.txt`)).toBe("done");
    expect(existsSync(ws.keptPaths(task).dir)).toBe(false);
    expect(phases).toEqual(["setup", "agent", "agent", "verify", "merge"]);
    const { branch } = ws.keptPaths(task);
    expect(result.work).toEqual({ branch, commit: git(repo, "rev-parse", branch) });
    expect(git(repo, "show", `${branch}:out.txt`)).toBe("done");
  });

  it("lets the checks decide over an agent that failed, and the agent's word decide without checks", async () => {
    const { run } = await pipeline((task) => (task.id === "A" ? { ok: false, files: { "a.txt": "a" } } : {}));
    const checked = await run(taskPayload("A", { test_steps: ["test -f a.txt"] }));
    expect(checked).toMatchObject({ ok: true, verification: "passed" });
    expect(checked.detail).toMatchObject({ agent_claimed: false, agent_reason: "no_marker" });
    expect(checked.detail.message).toBeUndefined();
    const unchecked = await run(taskPayload("B", { test_steps: ["manual: look at the page"] }));
    expect(unchecked).toMatchObject({ ok: true, verification: "unverified" });
    expect(unchecked.detail.manual_steps).toEqual(["manual: look at the page"]);
  });

  it("fails an agent cut short by a timeout or a stall, even when its checks pass", async () => {
    for (const reason of ["timeout", "stalled"]) {
      const { run } = await pipeline(() => ({ ok: false, reason, files: { "a.txt": "a" } }));
      const result = await run(taskPayload("A", { test_steps: ["test -f a.txt"] }));
      expect(result).toMatchObject({ ok: false, reason });
      expect(result.failure).toMatchObject({ reason });
    }
  });

  it("fails with the agent's reason when nothing can be checked and the agent failed", async () => {
    const { run } = await pipeline(() => ({ ok: false, reason: "max_turns" }));
    const result = await run(taskPayload("T", { test_steps: ["no-such-checker-xyz"] }));
    expect(result).toMatchObject({ ok: false, reason: "max_turns" });
    expect(result.failure).toMatchObject({ reason: "max_turns", output_tail: "agent output" });
    expect(result.detail.message).toBe("agent said max_turns");
    expect(result.failure?.manual_steps).toEqual(["no-such-checker-xyz"]);
  });

  it("retries in the kept worktree with the agent's session on the worker that ran it, elsewhere afresh", async () => {
    const { agent, run } = await pipeline((_task, call) =>
      call === 1 ? { files: { "draft.txt": "d" } } : { files: { "ok.txt": "" } },
    );
    const task = taskPayload("T", { test_steps: ["test -f ok.txt"] });
    const first = await run(task);
    expect(first.reason).toBe("verification_failed");
    const second = await run(retryOf(task, first));
    expect(second.ok).toBe(true);
    expect(agent.calls[1]).toMatchObject({ resumeSessionId: "session-T-1", cwd: agent.calls[0]?.cwd });
    expect(agent.calls[1]?.previousFailure).toMatchObject({
      reason: "verification_failed",
      step: "test -f ok.txt",
    });
    expect(second.detail).toMatchObject({ reused: true });

    const other = await run(taskPayload("U", { test_steps: ["test -f ok.txt"] }));
    const elsewhere = await run(retryOf(taskPayload("U", { test_steps: ["false"] }), other, "w2"));
    expect(agent.calls[3]?.resumeSessionId).toBeUndefined();
    expect(elsewhere.detail).toMatchObject({ reused: false });
  });

  it("fails a conflicting merge, and its retry starts fresh from the new base holding the other task's work", async () => {
    const { agent, repo, ws, run } = await pipeline(
      (task, call) => ({ files: { "shared.txt": call === 1 ? `from ${task.id}\n` : "from A\nand B\n" } }),
      { files: { "shared.txt": "base\n" } },
    );
    const a = taskPayload("A", { test_steps: ["test -s shared.txt"] });
    const b = taskPayload("B", { test_steps: ["test -s shared.txt"] });
    // B's worktree starts before A is merged.
    await ws.prepare(b, { reuse: false });
    expect((await run(a)).ok).toBe(true);
    const conflict = await run({
      ...b,
      previous_failure: { reason: "verification_failed", attempt: 1, worker_id: "w1" },
    });
    expect(conflict).toMatchObject({ ok: false, reason: "merge_conflict" });
    expect(conflict.detail.conflict_files).toEqual(["shared.txt"]);
    expect(conflict.detail.message).toBe("merging into the integration branch conflicts: shared.txt");
    expect(conflict.failure?.output_tail).toContain("shared.txt");
    const retry = await run(retryOf(b, conflict));
    expect(agent.calls.at(-1)?.resumeSessionId).toBeUndefined();
    expect(retry.ok).toBe(true);
    expect(git(repo, "show", `${ws.integrationBranch}:shared.txt`)).toBe("from A\nand B");
  });

  it("takes the merge back when the plan's verify fails on the merged tree only: integration_failed", async () => {
    const { repo, ws, run } = await pipeline((task) => ({ files: { [`${task.id}.txt`]: task.id } }));
    const both = "test ! -f A.txt || test ! -f B.txt";
    const b = taskPayload("B");
    await ws.prepare(b, { reuse: false });
    expect((await run(taskPayload("A"), plan({ verify: [both] }))).ok).toBe(true);
    const tip = git(repo, "rev-parse", ws.integrationBranch);
    const result = await run(
      { ...b, previous_failure: { reason: "verification_failed", attempt: 1, worker_id: "w1" } },
      plan({ verify: [both] }),
    );
    expect(result).toMatchObject({ ok: false, reason: "integration_failed" });
    expect(result.failure).toMatchObject({ step: both, exit_code: 1 });
    expect(git(repo, "rev-parse", ws.integrationBranch)).toBe(tip);
  });

  it("runs two tasks at once in their own worktrees, and a dependent one starts with both results", async () => {
    const { agent, repo, ws, run } = await pipeline((task) =>
      task.id === "C" ? { files: { "c.txt": "c" } } : { files: { [`${task.id}.txt`]: task.id } },
    );
    const verify = plan({ verify: ["test -s README.md"] });
    const [a, b] = await Promise.all([run(taskPayload("A"), verify), run(taskPayload("B"), verify)]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(agent.calls[0]?.cwd).not.toBe(agent.calls[1]?.cwd);
    const c = await run(
      taskPayload("C", { dependencies: ["A", "B"], test_steps: ["test -f A.txt", "test -f B.txt"] }),
    );
    expect(c).toMatchObject({ ok: true, verification: "passed" });
    expect(git(repo, "ls-tree", "--name-only", ws.integrationBranch)).toBe("A.txt\nB.txt\nREADME.md\nc.txt");
    expect(await ws.finish()).toMatchObject({ fastForwarded: true, branch: "main" });
    expect(readFileSync(join(repo, "c.txt"), "utf8")).toBe("c");
  });

  it("runs the setup command in a new worktree and commits none of what it made", async () => {
    const { repo, ws, run } = await pipeline(() => ({ files: { "work.txt": "w" } }), {
      setup: "mkdir -p deps && echo lib > deps/lib.txt",
    });
    const result = await run(taskPayload("T", { test_steps: ["test -f deps/lib.txt", "test -f work.txt"] }));
    expect(result).toMatchObject({ ok: true, verification: "passed" });
    expect(git(repo, "ls-tree", "-r", "--name-only", ws.integrationBranch)).toBe("README.md\nwork.txt");
  });

  it("merges the work an agent wrote into a file the setup command made, which the check saw", async () => {
    const { repo, ws, run } = await pipeline(() => ({ files: { "config.local": "the work\n" } }), {
      setup: "echo placeholder > config.local",
    });
    const result = await run(taskPayload("T", { test_steps: ["grep -q work config.local"] }));
    expect(result).toMatchObject({ ok: true, verification: "passed" });
    expect(git(repo, "show", `${ws.integrationBranch}:config.local`)).toBe("the work");
  });

  it("leaves a file over the size limit out of the commit and names it in the attempt's detail", async () => {
    const repo = makeGitRepo(env);
    const ws = await openWorkspaces({ repoDir: repo, planId: "p", env, maxFileBytes: 10 });
    const agent = fakeAgent(() => ({ files: { "big.txt": "x".repeat(11), "ok.txt": "ok" } }));
    const attempt = createTaskAttempt({
      workspaces: ws,
      runAgent: agent.run,
      verifyTimeoutMs: 10_000,
      killGraceMs: 100,
      env,
      workerId: "w1",
    });
    const task = taskPayload("T", { test_steps: ["test -f ok.txt"] });
    const result = await attempt({ task, plan: plan(), signal: new AbortController().signal });
    expect(result).toMatchObject({ ok: true });
    expect(result.detail.left_out_too_large).toEqual([{ path: "big.txt", bytes: 11 }]);
    expect(git(repo, "ls-tree", "--name-only", ws.integrationBranch)).toBe("README.md\nok.txt");
  });

  it("sets the merge worktree up once, and what setup made there survives later merges", async () => {
    const { repo, run } = await pipeline((task) => ({ files: { [`${task.id}.txt`]: task.id } }), {
      setup: "mkdir -p deps && echo lib > deps/lib.txt && echo x >> ../setup-runs",
    });
    const verify = plan({ verify: ["test -f deps/lib.txt"] });
    expect((await run(taskPayload("A"), verify)).ok).toBe(true);
    expect((await run(taskPayload("B"), verify)).ok).toBe(true);
    const c = await run(taskPayload("C"), verify);
    expect(c).toMatchObject({ ok: true, verification: "passed" });
    // One setup per task worktree, one for the merge worktree.
    const runs = readFileSync(join(repo, ".whilly", "worktrees", "p", "setup-runs"), "utf8");
    expect(runs).toBe("x\n".repeat(4));
  });

  it("fails setup_failed when the setup command fails, before the agent runs", async () => {
    const { agent, run } = await pipeline(() => ({}), { setup: "echo cannot install >&2; exit 4" });
    const result = await run(taskPayload("T", { test_steps: ["true"] }));
    expect(result).toMatchObject({ ok: false, reason: "setup_failed", costMicroUsd: 0 });
    expect(result.failure).toMatchObject({
      step: "echo cannot install >&2; exit 4",
      exit_code: 4,
      output_tail: "cannot install",
    });
    expect(agent.calls).toHaveLength(0);
  });

  it("continues a rate-limited attempt's worktree and session when the task comes back", async () => {
    const limited = { message: "429", until: undefined };
    const { agent, run } = await pipeline((_task, call) =>
      call === 1 ? { files: { "half.txt": "h" }, ok: false, limited } : { files: { "rest.txt": "r" } },
    );
    const task = taskPayload("T", { test_steps: ["test -f half.txt", "test -f rest.txt"] });
    expect((await run(task)).limited).toEqual(limited);
    const again = await run(task);
    expect(again).toMatchObject({ ok: true, verification: "passed" });
    expect(agent.calls[1]).toMatchObject({ cwd: agent.calls[0]?.cwd, resumeSessionId: "session-T-1" });
  });

  it("reuses a worktree another local slot kept", async () => {
    const { agent, run } = await pipeline(() => ({ files: { "a.txt": "a" } }), { localWorkerIds: ["w2"] });
    const task = taskPayload("T", { test_steps: ["test -f b.txt"] });
    const first = await run(task);
    const retry = await run(retryOf(task, first, "w2"));
    expect(retry.detail).toMatchObject({ reused: true });
    expect(agent.calls[1]?.resumeSessionId).toBe("session-T-1");
  });

  it("hands a rate-limited agent's attempt back as it is, without checks", async () => {
    const limited = { message: "You've hit your limit", until: undefined };
    const { run } = await pipeline(() => ({ ok: false, reason: "rate_limited", limited }));
    const result = await run(taskPayload("T", { test_steps: ["touch checked"] }));
    expect(result.limited).toEqual(limited);
    expect(result.detail.checks).toBeUndefined();
  });
});

describe("createTaskAttempt stopped", () => {
  it("hands the attempt back unjudged when the worker stops during the checks, ending the check", async () => {
    const { ws, run } = await pipeline(() => ({ files: { "x.txt": "x" } }));
    const task = taskPayload("T", { test_steps: ["echo $$ > check.pid; exec sleep 30"] });
    const pidFile = join(ws.keptPaths(task).dir, "check.pid");
    const stop = new AbortController();
    const stopOnceRunning = async () => {
      while (!existsSync(pidFile)) await new Promise((r) => setTimeout(r, 20));
      stop.abort();
    };
    const result = await run(
      task,
      plan(),
      (p) => p.phase === "verify" && void stopOnceRunning(),
      stop.signal,
    );
    expect(result.aborted).toBe(true);
    expect(result.detail.checks).toBeUndefined();
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("createTaskAttempt in place", () => {
  it("runs the agent and the checks in the directory, with no worktree or commit", async () => {
    const dir = scratch();
    const calls: string[] = [];
    const runAgent: RunAgent = async ({ cwd }) => {
      calls.push(cwd);
      writeFileSync(join(cwd, "out.txt"), "x");
      return { ok: true, reason: undefined, costMicroUsd: 0, aborted: false, detail: {} };
    };
    const attempt = createTaskAttempt({
      workspaces: undefined,
      cwd: dir,
      runAgent,
      verifyTimeoutMs: 10_000,
      killGraceMs: 100,
      env,
      workerId: "w1",
    });
    const signal = new AbortController().signal;
    const task = taskPayload("T", { test_steps: ["test -f out.txt", "test -f missing.txt"] });
    const result = await attempt({ task, plan: null, signal });
    expect(calls).toEqual([dir]);
    expect(result).toMatchObject({ ok: false, reason: "verification_failed" });
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("x");
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });
});
