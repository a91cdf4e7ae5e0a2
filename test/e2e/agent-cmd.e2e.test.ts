import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_TYPES } from "@whilly/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  eventsOf,
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runBin,
} from "../support/cli.js";

// The generic command agent end to end: the built `whilly run` as a process, a plan whose task names the
// agent `cmd`, and `--agent-cmd` pointing at a tiny script agent that reads its prompt from
// {prompt_file}, writes a file in the task's worktree and prints {"cost_usd":0.01} as its last line.
const CMD_AGENT = join(FIXTURES, "fake-agents", "cmd-agent.mjs");

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(() => removeAll());

describe("whilly run with the generic command agent", () => {
  it("runs a cmd task to DONE: the script's file merged, its cost and the agent recorded", async () => {
    const repo = makeRepo(template);
    const plan = {
      project: "Cmd",
      plan_id: "cmd-plan",
      max_attempts: 1,
      tasks: [
        {
          id: "C-1",
          status: "pending",
          priority: "high",
          agent: "cmd",
          model: "tiny-1",
          description: "Write CMD-C-1.txt.",
          dependencies: [],
          acceptance_criteria: ["CMD-C-1.txt exists"],
          test_steps: ["test -s CMD-C-1.txt"],
        },
      ],
    };
    writeFileSync(join(repo, "tasks.json"), JSON.stringify(plan, null, 2));
    const agentCmd = `${CMD_AGENT} --prompt-file {prompt_file} --model {model} --task {task_id}`;
    // --agent cmd (and --model) give the same choice to a control plane that does not read the task's own.
    const result = await runBin(
      ["run", "tasks.json", "--agent", "cmd", "--model", "tiny-1", "--agent-cmd", agentCmd, "--json"],
      { cwd: repo, env: baseEnv() },
    );
    expect(result.code, result.err).toBe(0);
    const summary = JSON.parse(result.out) as {
      spent_usd: string;
      tasks: { id: string; status: string; cost_usd: string; agent: string | null; model: string | null }[];
    };
    expect(summary.tasks).toEqual([
      expect.objectContaining({
        id: "C-1",
        status: "DONE",
        cost_usd: "0.010000",
        agent: "cmd",
        model: "tiny-1",
      }),
    ]);
    expect(summary.spent_usd).toBe("0.010000");
    expect(result.err).toMatch(/✓ C-1 DONE in .* · on cmd \(tiny-1\)/);
    // The work of the task's worktree reached the user's branch.
    expect(readFileSync(join(repo, "CMD-C-1.txt"), "utf8")).toBe("model=tiny-1\nTask id: C-1\n");
    const complete = (await eventsOf(repo, "cmd-plan")).find((e) => e.eventType === EVENT_TYPES.complete);
    expect(complete?.detail).toMatchObject({ agent: "cmd", model: "tiny-1", cost_usd: "0.010000" });
  }, 60_000);

  it("refuses a template with an unknown placeholder before anything is stored", async () => {
    const repo = makeRepo(template);
    const result = await runBin(["run", "tasks.json", "--agent-cmd", "agent {promt}"], {
      cwd: repo,
      env: baseEnv(),
    });
    expect(result.code).toBe(2);
    expect(result.err).toContain("--agent-cmd: unknown placeholder {promt}");
  }, 30_000);
});
