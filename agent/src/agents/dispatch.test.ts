import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPayload } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDefaults, claimChoice, createAgentDispatch, taskAgentChoice } from "./dispatch.js";
import { parseAgentFlags } from "./setup.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));

function task(over: Partial<TaskPayload> = {}): TaskPayload {
  return {
    plan_id: "p",
    id: "T-1",
    status: "IN_PROGRESS",
    priority: "high",
    description: "Write the file",
    dependencies: [],
    key_files: [],
    acceptance_criteria: [],
    test_steps: [],
    prd_requirement: "",
    version: 2,
    attempts: 1,
    claimed_by: "w",
    lease_expires_at: null,
    ...over,
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "whilly-dispatch-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function dispatch(defaults: AgentDefaults = {}) {
  const env = {
    PATH: process.env.PATH,
    CLAUDE_BIN: join(agents, "success.mjs"),
    WHILLY_MODEL: "claude-default",
    FAKE_AGENT_RECORD: join(dir, "record.json"),
  };
  const agentCmd = `${join(agents, "cmd-agent.mjs")} --prompt-file {prompt_file} --model {model} --task {task_id}`;
  const setup = parseAgentFlags({ agentCmd }, env, dir);
  return createAgentDispatch({
    registry: setup.registry,
    defaults,
    killGraceMs: 200,
    timeoutMs: 20_000,
    env,
  });
}

const recorded = async () =>
  JSON.parse(await readFile(join(dir, "record.json"), "utf8")) as { argv: string[] };
const signal = () => new AbortController().signal;

describe("createAgentDispatch", () => {
  it("runs each task on the agent its claim names, with that agent's model, and records both", async () => {
    const run = dispatch();
    const viaCmd = await run({
      task: task({ agent: "cmd", model: "small-1" }),
      plan: null,
      cwd: dir,
      signal: signal(),
    });
    expect(viaCmd).toMatchObject({
      ok: true,
      costMicroUsd: 10_000,
      detail: { agent: "cmd", model: "small-1" },
    });
    expect(await readFile(join(dir, "CMD-T-1.txt"), "utf8")).toBe("model=small-1\nTask id: T-1\n");
    const viaClaude = await run({ task: task({ id: "T-2" }), plan: null, cwd: dir, signal: signal() });
    expect(viaClaude).toMatchObject({ ok: true, detail: { agent: "claude", model: "claude-default" } });
    expect((await recorded()).argv).toEqual(expect.arrayContaining(["--model", "claude-default"]));
    expect(existsSync(join(dir, "CMD-T-2.txt"))).toBe(false);
  });

  it("uses the worker's --agent and --model for a claim that names none (an older control plane)", async () => {
    const attempt = await dispatch({ agent: "cmd", model: "m-2" })({
      task: task(),
      plan: null,
      cwd: dir,
      signal: signal(),
    });
    expect(attempt.detail).toMatchObject({ agent: "cmd", model: "m-2" });
    // A model given for another agent never reaches this one: the adapter's default (empty for cmd).
    const other = await dispatch({ model: "claude-x" })({
      task: task({ agent: "cmd" }),
      plan: null,
      cwd: dir,
      signal: signal(),
    });
    expect(other.detail).toMatchObject({ agent: "cmd", model: "" });
  });

  it("lets --force-agent and --force-model win over the claim", () => {
    const defaults = { forceAgent: "cmd", forceModel: "forced" };
    expect(taskAgentChoice(task({ agent: "claude", model: "x" }), defaults)).toEqual({
      agent: "cmd",
      model: "forced",
    });
    expect(claimChoice({ ...defaults, agent: "claude" })).toEqual({
      agent: "claude",
      force_agent: "cmd",
      force_model: "forced",
    });
    expect(claimChoice({})).toEqual({});
  });

  it("hands back a task whose agent has no adapter here, as an agent that cannot run on this machine", async () => {
    const attempt = await dispatch()({
      task: task({ agent: "nosuch" }),
      plan: null,
      cwd: dir,
      signal: signal(),
    });
    expect(attempt).toMatchObject({ ok: false, reason: "agent_unavailable", detail: { agent: "nosuch" } });
    expect(attempt.unavailable?.message).toContain("no agent named 'nosuch'");
  });

  it("resumes a session only on the agent that made it", async () => {
    const previousFailure = { attempt: 1, reason: "no_marker", session_id: "s-1" };
    const run = dispatch();
    const input = {
      task: task({ attempts: 2 }),
      plan: null,
      cwd: dir,
      signal: signal(),
      resumeSessionId: "s-1",
    };
    await run({ ...input, previousFailure: { ...previousFailure, agent: "cmd" } });
    expect((await recorded()).argv).not.toContain("--resume");
    const resumed = await run({ ...input, previousFailure });
    expect((await recorded()).argv).toEqual(expect.arrayContaining(["--resume", "s-1"]));
    expect(resumed.detail).toMatchObject({ resumed: true, agent: "claude" });
  });

  it("fails a generic command that exits non-zero, keeping its cost and naming the agent in the failure", async () => {
    const env = { PATH: process.env.PATH, FAKE_CMD_EXIT: "4" };
    const setup = parseAgentFlags(
      { agentCmd: `${join(agents, "cmd-agent.mjs")} --prompt-file {prompt_file}` },
      env,
      dir,
    );
    const run = createAgentDispatch({
      registry: setup.registry,
      defaults: {},
      killGraceMs: 200,
      timeoutMs: 20_000,
      env,
    });
    const attempt = await run({ task: task({ agent: "cmd" }), plan: null, cwd: dir, signal: signal() });
    expect(attempt).toMatchObject({ ok: false, reason: "nonzero_exit", costMicroUsd: 10_000 });
    expect(attempt.failure).toMatchObject({ reason: "nonzero_exit", exit_code: 4, agent: "cmd" });
  });
});
