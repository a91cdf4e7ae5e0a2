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
