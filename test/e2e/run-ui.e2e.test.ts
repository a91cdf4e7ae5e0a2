import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  ROOT,
  removeAll,
  scratchDir,
  spawnBin,
  waitFor,
} from "../support/cli.js";

// `whilly run --ui` as a real process: while a task is held by an agent that waits for the test, the
// printed link serves the built dashboard on 127.0.0.1 behind real token auth; once the run ends,
// nothing listens on that port any more.
const HOLD_AGENT = join(FIXTURES, "fake-agents", "hold-agent.mjs");
const LINK = /^dashboard: (http:\/\/127\.0\.0\.1:(\d+))\/#signin=([\w-]{20,})$/m;

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** Resolves true when a TCP connection to the port is accepted, false when it is refused. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("whilly run --ui", () => {
  it("serves the dashboard behind token auth while the run goes, then stops listening", async () => {
    const repo = makeRepo(template);
    const release = join(scratchDir("whilly-hold-"), "release");
    const plan = {
      project: "UI",
      plan_id: "ui-plan",
      max_attempts: 1,
      tasks: [{ id: "U-1", status: "pending", priority: "high", agent: "cmd", description: "Hold." }],
    };
    writeFileSync(join(repo, "tasks.json"), JSON.stringify(plan));
    const agentCmd = `${HOLD_AGENT} ${release} {prompt_file}`;
    const run = spawnBin(["run", "tasks.json", "--agent", "cmd", "--agent-cmd", agentCmd, "--ui"], {
      cwd: repo,
      env: baseEnv(),
    });
    try {
      const [, url, port] = await waitFor(
        "the dashboard link",
        () => LINK.exec(run.err()) ?? undefined,
        45_000,
      );
      const index = await fetch(`${url}/`);
      expect(index.status).toBe(200);
      expect(await index.text()).toBe(readFileSync(join(ROOT, "web", "dist", "index.html"), "utf8"));
      expect(index.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect((await fetch(`${url}/health`)).status).toBe(200);
      // Real auth: the read API wants a credential, never the run's in-process trust.
      expect((await fetch(`${url}/api/v1/plans`)).status).toBe(401);
      // Still running: its one task cannot end before the release below.
      expect(run.child.exitCode).toBeNull();

      writeFileSync(release, "");
      const result = await run.done;
      expect(result.code, result.err).toBe(0);
      expect(result.err.match(/^dashboard: /gm)).toHaveLength(1);
      expect(await listening(Number(port))).toBe(false);
    } finally {
      writeFileSync(release, "");
      run.child.kill();
    }
  });
});
