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
// printed link serves the built dashboard on 127.0.0.1 behind real token auth, its code signs in once,
// and the event stream hears the run's progress live; once the run ends, nothing listens on that port.
const HOLD_AGENT = join(FIXTURES, "fake-agents", "hold-agent.mjs");
const LINK = /^dashboard: (http:\/\/127\.0\.0\.1:(\d+))\/#signin=([\w-]{20,})&plan=ui-plan$/m;

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

function redeem(url: string, code: string): Promise<Response> {
  return fetch(`${url}/api/v1/session/redeem`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
}

/** Reads a server-sent event stream until its text holds `marker`; then hangs up. @returns the text. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before ${marker}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe("whilly run --ui", () => {
  it("serves the dashboard, signs in once by the link, streams the run live, then stops listening", async () => {
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
      // The control plane's session lifetime holds here too (the default is 12 hours).
      env: baseEnv({ WHILLY_SESSION_TTL: "120" }),
    });
    try {
      const [, url = "", port, code = ""] = await waitFor(
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

      // The link's code signs in once: an admin session cookie that reads the API.
      const first = await redeem(url, code);
      expect(first.status).toBe(200);
      const cookie = first.headers.get("set-cookie")?.split(";")[0] ?? "";
      expect(cookie).not.toBe("");
      expect(first.headers.get("set-cookie")?.split(/;\s*/)).toContain("Max-Age=120");
      expect((await redeem(url, code)).status).toBe(401);
      const plans = await fetch(`${url}/api/v1/plans`, { headers: { cookie } });
      expect(plans.status).toBe(200);
      expect(JSON.stringify(await plans.json())).toContain('"ui-plan"');

      // Live: the plan's event stream hears the run finish the task (the run's store signals).
      const stream = await fetch(`${url}/api/v1/plans/ui-plan/events/stream`, { headers: { cookie } });
      expect(stream.status).toBe(200);
      const heard = readUntil(stream, '"COMPLETE"');
      writeFileSync(release, "");
      expect(await heard).toContain('"task_id":"U-1"');
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
