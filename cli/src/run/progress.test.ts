import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeAgentEnv,
  hasAnsi,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  scratchDir,
  spawnBin,
  waitFor,
  writePlanFile,
} from "../../../test/support/cli.js";

// The built `whilly run` as a child process (stderr a pipe, as in a log), with a fake agent that
// finishes only when the test creates a file: the test sees the "running" line come while the agent
// works, however slow the machine, and then lets it finish.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run's progress", () => {
  it("says every WHILLY_PROGRESS_INTERVAL that a task is still running, in plain lines", async () => {
    const repo = makeRepo(template);
    const scratch = scratchDir("whilly-progress-");
    const release = join(scratch, "finish");
    writePlanFile(join(repo, "tasks.json"), "slow", [
      ["T-A", "high"],
      ["T-B", "medium"],
    ]);
    const env = {
      ...fakeAgentEnv({
        script: { "T-A": {}, "T-B": { until_file: release, cost: 0.5 } },
        log: join(scratch, "agent.log"),
      }),
      WHILLY_PROGRESS_INTERVAL: "0.05",
    };
    const run = spawnBin(["run", "tasks.json"], { cwd: repo, env });
    await waitFor("a running line for T-B", () =>
      /\[1\/2\] … T-B running \S+ · agent\n/.test(run.err()) ? true : undefined,
    );
    writeFileSync(release, "");
    const result = await run.done;
    expect(result.code).toBe(0);
    // Each running line says what the attempt does: here the agent's phase (the fake agent reports no turns).
    expect(result.err).toMatch(
      /\[1\/2\] ▶ T-B \(medium\) attempt 1\n(\[1\/2\] … T-B running \S+( · \w+)*\n)+/,
    );
    expect(result.err).toContain("[2/2] ✓ T-B DONE in ");
    // No running line after the task finished, and none for T-A once T-B started.
    const after = result.err.slice(result.err.indexOf("✓ T-B DONE"));
    expect(after).not.toContain("running");
    expect(result.err.slice(result.err.indexOf("▶ T-B"))).not.toContain("T-A running");
    expect(hasAnsi(result.err)).toBe(false);
  });
});
