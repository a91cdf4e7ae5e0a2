import { join } from "node:path";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventsOf,
  makeRepo,
  makeStoreTemplate,
  ROOT,
  removeAll,
  runBin,
  scratchDir,
  withStore,
  writePlanFile,
} from "../support/cli.js";

// An agent that cannot run on this machine is not a failed task: `whilly run` with the REAL Claude Code
// CLI, not logged in (no API key, an empty HOME) or with its key refused by the fake model (HTTP 401
// authentication_error), hands the task back with no attempt used and stops with exit 2 and a hint.
const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");

let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFakeAnthropic({
      script: {
        default: {
          turns: [{ text: "Done. <promise>COMPLETE</promise>" }],
          fault: { status: 401, message: "invalid x-api-key" },
        },
      },
    }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

async function runUnavailable(planId: string, extra: Record<string, string | undefined>) {
  const repo = makeRepo(template);
  writePlanFile(join(repo, "tasks.json"), planId, [
    ["U-1", "high"],
    ["U-2", "low", ["U-1"]],
  ]);
  const env: Record<string, string | undefined> = {
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-"), maxRetries: 0 }),
    CLAUDE_BIN: CLAUDE,
    WHILLY_MODEL: "claude-sonnet-4-6",
    ...extra,
  };
  const result = await runBin(["run", "tasks.json"], { cwd: repo, env });
  const tasks = await withStore(repo, (store) => store.listTasks(planId));
  const events = await eventsOf(repo, planId);
  return { result, tasks, events };
}

describe("whilly run: an agent that cannot run leaves its task PENDING", () => {
  it("not logged in: exit 2, the hint, the task PENDING with attempts 0, nothing FAILED or blocked", async () => {
    const { result, tasks, events } = await runUnavailable("not-logged-in", { ANTHROPIC_API_KEY: undefined });
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain(
      "error: the agent cannot run on this machine: it has no usable credentials: Not logged in",
    );
    expect(result.err).toContain("hint: run `claude /login` or set ANTHROPIC_API_KEY");
    expect(tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
      ["U-1", "PENDING", 0],
      ["U-2", "PENDING", 0],
    ]);
    expect(events.map((e) => e.eventType)).not.toContain("FAIL");
    expect(events.at(-1)).toMatchObject({ eventType: "RELEASE", payload: { reason: "agent_unavailable" } });
  });

  it("a key the model refuses (401 authentication_error): exit 2, the hint, the task PENDING with attempts 0", async () => {
    const { result, tasks } = await runUnavailable("key-refused", {});
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain("hint: run `claude /login` or set ANTHROPIC_API_KEY");
    expect(tasks.find((t) => t.id === "U-1")).toMatchObject({ status: "PENDING", attempts: 0 });
  });
});
