import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  readAgentLog,
  removeAll,
  runCli,
  scratchDir,
  waitFor,
  withStore,
  writePlanFile,
} from "../../../test/support/cli.js";

// A Ctrl-C that comes before the claim loop starts (while the store opens, or the plan is imported or
// resumed): the signal is already aborted when the run would start listening for it.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run interrupted before its first claim", () => {
  it("claims nothing and exits 130, on a new plan and on a resumed one", async () => {
    const repo = makeRepo(template);
    const log = join(scratchDir("whilly-agent-"), "agent.log");
    writePlanFile(join(repo, "tasks.json"), "early-stop", [["E-1", "high"]]);
    const env = fakeAgentEnv({ script: {}, log });
    const interrupted = () =>
      runCli(["run", "tasks.json"], { cwd: repo, env, interrupt: AbortSignal.abort() });

    const first = await interrupted();
    expect(first.code).toBe(130);
    const resumed = await interrupted();
    expect(resumed.err).toContain("resuming stored plan 'early-stop'");
    expect(resumed.code).toBe(130);

    expect(readAgentLog(log)).toEqual([]);
    const events = await eventsOf(repo, "early-stop");
    expect(events.map((e) => e.eventType)).toEqual(["task.created"]);
  });
});

describe("whilly run interrupted during an attempt's checks", () => {
  it("hands the task back with its attempt given back and the agent's cost kept on the plan", async () => {
    const repo = makeRepo(template);
    const scratch = scratchDir("whilly-checks-");
    const started = join(scratch, "check-started");
    writePlanFile(join(repo, "tasks.json"), "stopped-checks", [["C-1", "high"]], { maxAttempts: 2 });
    const env = fakeAgentEnv({ script: { "C-1": { cost: 0.25 } }, log: join(scratch, "agent.log") });
    const stop = new AbortController();
    const running = runCli(["run", "tasks.json", "--verify", `touch '${started}' && sleep 30`], {
      cwd: repo,
      env,
      interrupt: stop.signal,
    });
    await waitFor("the check to start", () => (existsSync(started) ? true : undefined));
    stop.abort("SIGINT");
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.out).toMatch(/^C-1 +PENDING +0\/2 /m);
    const [plan, task] = await withStore(repo, (store) =>
      Promise.all([store.getPlan("stopped-checks"), store.getTask("stopped-checks", "C-1")]),
    );
    expect(task).toMatchObject({ status: "PENDING", attempts: 0 });
    expect(plan?.spentMicroUsd).toBe(250_000);
    const release = (await eventsOf(repo, "stopped-checks")).find((e) => e.eventType === "RELEASE");
    expect(release?.payload).toMatchObject({ reason: "shutdown" });
  });
});
