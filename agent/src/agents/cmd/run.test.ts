import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../runner/run-agent.js";
import { createCmdAdapter } from "./index.js";

// The generic command through the shared runner: whilly does not read its stdout as events, so any
// output, stderr too, shows it is alive; only a command silent on both streams is stalled.
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "whilly-cmd-run-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(script: string) {
  return runAgent({
    adapter: createCmdAdapter({ template: `/bin/sh -c '${script}'`, cwd: dir }),
    invocation: { prompt: "p", model: "", cwd: dir, taskId: "T-1", mode: "task" },
    timeoutMs: 20_000,
    killGraceMs: 300,
    stallTimeoutMs: 1000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
}

describe("the generic command and stalls", () => {
  it("does not stall a command that logs only on stderr, however long it runs", async () => {
    const result = await run("for i in 1 2 3 4 5 6; do echo working >&2; sleep 0.4; done");
    expect(result.stalled).toBe(false);
    expect(result.outcome).toMatchObject({ ok: true });
    expect(result.wallMs).toBeGreaterThan(1000);
  });

  it("stalls a command silent on both streams", async () => {
    const result = await run("sleep 5");
    expect(result.stalled).toBe(true);
    expect(result.outcome).toMatchObject({ ok: false, reason: "stalled" });
  });

  it("fails to start, without throwing, when {prompt} is too long for one argument (E2BIG)", async () => {
    const result = await runAgent({
      adapter: createCmdAdapter({ template: "/bin/echo {prompt}", cwd: dir }),
      invocation: { prompt: "x".repeat(200_000), model: "", cwd: dir, taskId: "T-1", mode: "task" },
      timeoutMs: 5000,
      killGraceMs: 300,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    expect(result.spawnError?.code).toBe("E2BIG");
    expect(result.outcome).toMatchObject({ ok: false, reason: "spawn_failed" });
  });
});
