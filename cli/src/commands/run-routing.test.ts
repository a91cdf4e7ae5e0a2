import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  scratchDir,
  withStore,
  writePlanFile,
} from "../../../test/support/cli.js";

// `whilly run` routes with the local capabilities: a ready task this machine cannot run ends the run,
// named with what it waits for, instead of a wait for ever (docs/agents.md#routing).
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run with tasks it cannot run", () => {
  it("ends naming the task and what it waits for; with --tags it runs it", async () => {
    const repo = makeRepo(template);
    const file = join(repo, "tasks.json");
    writePlanFile(file, "gpu", [
      ["G-1", "high"],
      ["G-2", "medium"],
    ]);
    const plan = JSON.parse(readFileSync(file, "utf8"));
    plan.tasks[1].required_tags = ["gpu"];
    writeFileSync(file, JSON.stringify(plan));
    const log = join(scratchDir("whilly-agent-"), "agent.log");
    const env = fakeAgentEnv({ script: {}, log });
    const first = await runCli(["run", "tasks.json"], { cwd: repo, env });
    expect(first.code).toBe(1);
    expect(first.err).toContain("whilly run: G-2 waits for a worker with tag gpu, which this run is not");
    expect(first.out).toMatch(/^G-2 +PENDING +0\/1 .* waits for a worker with tag gpu$/m);
    expect(first.out).toMatch(/^G-1 +DONE /m);
    const second = await runCli(["run", "tasks.json", "--tags", "gpu"], { cwd: repo, env });
    expect(second.code).toBe(0);
    const task = await withStore(repo, (store) => store.getTask("gpu", "G-2"));
    expect(task?.status).toBe("DONE");
  }, 60_000);
});
