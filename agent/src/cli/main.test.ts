import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPayload } from "@whilly/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentAttempt } from "../worker/types.js";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-7" })}.sig`;

const task: TaskPayload = {
  plan_id: "demo",
  id: "T-1",
  status: "CLAIMED",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 1,
  attempts: 0,
  claimed_by: "w-7",
  lease_expires_at: null,
};

type Seen = { path: string; authorization: string | undefined; body: Record<string, unknown> };

/**
 * A scripted control plane: hands out `T-1` on the first claim, holds later claims for `holdMs` then
 * answers 204, and answers start/complete/release as protocol v1 does. `refuse` answers 401 everywhere.
 * The read API answers `planStatus` (200 by default) for any plan.
 */
async function scriptedControlPlane(
  options: { refuse?: boolean; holdMs?: number; planStatus?: number } = {},
) {
  const seen: Seen[] = [];
  let claims = 0;
  const reply = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const path = req.url ?? "";
    seen.push({ path, authorization: req.headers.authorization, body: JSON.parse(text || "{}") });
    if (options.refuse) {
      return reply(res, 401, {
        error_code: "missing_or_invalid_bearer",
        detail: "invalid token",
        task_id: null,
      });
    }
    if (path.startsWith("/api/v1/plans/")) return reply(res, ...planReply(options.planStatus ?? 200));
    if (path.endsWith("/heartbeat")) return reply(res, 200, { ok: true });
    if (path === "/tasks/claim") {
      claims++;
      if (claims === 1) return reply(res, 200, { task, plan: null });
      setTimeout(() => reply(res, 204), options.holdMs ?? 50);
      return;
    }
    const verb = path.split("/").at(-1);
    const status = { start: "IN_PROGRESS", complete: "DONE", release: "PENDING" }[verb ?? ""];
    if (status === undefined)
      return reply(res, 404, { error_code: "not_found", detail: path, task_id: null });
    const version = Number(JSON.parse(text).version) + 1;
    return reply(res, 200, { task: { ...task, status, version, attempts: 1 } });
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    paths: () => seen.map((s) => s.path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The read API's answer about a plan: the plan, or an envelope that says nothing about it. */
function planReply(status: number): [number, unknown] {
  if (status === 200) return [200, { id: "demo", name: "demo" }];
  return [status, { error_code: status === 404 ? "not_found" : "forbidden", detail: "no", task_id: null }];
}

function testIo(env: Record<string, string>, interrupt?: AbortSignal) {
  let out = "";
  let err = "";
  const io: WorkerIo = {
    out: { write: (t: string) => (out += t) },
    err: { write: (t: string) => (err += t) },
    env,
    cwd: root,
    interrupt,
  };
  return { io, out: () => out, err: () => err };
}

const done: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 1500, aborted: false, detail: {} };

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "whilly-worker-main-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe("whilly-worker", () => {
  it("with --once runs one task as the token's worker and exits 0 with a stats line", async () => {
    const cp = await scriptedControlPlane();
    servers.push(cp);
    const t = testIo({ WHILLY_CONTROL_URL: cp.url, WHILLY_WORKER_TOKEN: token });
    const code = await workerMain(["--plan", "demo", "--once"], t.io, {
      makeRunAttempt: () => async () => done,
    });
    expect(code).toBe(0);
    const taskCalls = cp.paths().filter((p) => !p.endsWith("/heartbeat"));
    expect(taskCalls).toEqual([
      "/api/v1/plans/demo",
      "/tasks/claim",
      "/tasks/T-1/start",
      "/tasks/T-1/complete",
    ]);
    expect(cp.seen.every((s) => s.authorization === `Bearer ${token}`)).toBe(true);
    expect(cp.seen.find((s) => s.path === "/tasks/claim")?.body).toEqual({
      worker_id: "w-7",
      plan_id: "demo",
      start: true,
    });
    expect(cp.seen.find((s) => s.path.endsWith("/complete"))?.body).toMatchObject({
      worker_id: "w-7",
      plan_id: "demo",
      version: 2,
      cost_usd: "0.001500",
    });
    expect(t.err()).toContain("whilly-worker: T-1 DONE");
    expect(t.err()).toMatch(
      /whilly-worker: worker 'w-7' finished — iterations=1 completed=1 failed=0 idle_polls=0 released_on_shutdown=0 lost=0\n$/,
    );
  });

  it("logs that the agent is still running every WHILLY_PROGRESS_INTERVAL, and the cost at the end", async () => {
    const cp = await scriptedControlPlane();
    servers.push(cp);
    const t = testIo({
      WHILLY_CONTROL_URL: cp.url,
      WHILLY_WORKER_TOKEN: token,
      WHILLY_PROGRESS_INTERVAL: "0.02",
    });
    // The agent finishes only once the worker said it is running: no guess at how long that takes.
    const slow = async () => {
      while (!t.err().includes("whilly-worker: T-1 running for ")) await new Promise((r) => setTimeout(r, 5));
      return done;
    };
    expect(await workerMain(["--plan", "demo", "--once"], t.io, { makeRunAttempt: () => slow })).toBe(0);
    expect(t.err()).toMatch(/whilly-worker: T-1 running for \d+ s, attempt 1\n/);
    expect(t.err()).toMatch(/whilly-worker: T-1 DONE in \d+\.\d s · \$0\.0015\n/);
  });

  it("exits 2 with a clear error when the control plane refuses the token", async () => {
    const cp = await scriptedControlPlane({ refuse: true });
    servers.push(cp);
    const t = testIo({});
    const code = await workerMain(["--connect", cp.url, "--token", token, "--plan", "demo"], t.io, {
      makeRunAttempt: () => async () => done,
    });
    expect(code).toBe(2);
    expect(t.err()).toContain("error: the control plane refused the token: invalid token");
    expect(t.err()).toContain("hint: the token is wrong or was revoked");
    expect(t.err()).toContain("finished — iterations=");
  });

  it("warns and claims anyway when the read API cannot say whether the plan exists", async () => {
    for (const planStatus of [403, 404]) {
      const cp = await scriptedControlPlane({ planStatus });
      servers.push(cp);
      const t = testIo({ WHILLY_CONTROL_URL: cp.url, WHILLY_WORKER_TOKEN: token });
      const code = await workerMain(["--plan", "demo", "--once"], t.io, {
        makeRunAttempt: () => async () => done,
      });
      expect(code).toBe(0);
      expect(cp.seen.find((s) => s.path === "/api/v1/plans/demo")?.authorization).toBe(`Bearer ${token}`);
      expect(t.err()).toContain(
        `whilly-worker: warning: cannot check that plan 'demo' exists (the read API answered ${planStatus} `,
      );
      expect(t.err()).toContain("whilly-worker: T-1 DONE");
    }
  });

  it("long-polls again after a 204 and stops after --max-iterations", async () => {
    const cp = await scriptedControlPlane({ holdMs: 1100 });
    servers.push(cp);
    const t = testIo({});
    const argv = ["--connect", cp.url, "--token", token, "--plan", "demo", "--max-iterations", "3"];
    const code = await workerMain(argv, t.io, { makeRunAttempt: () => async () => done });
    expect(code).toBe(0);
    expect(cp.paths().filter((p) => p === "/tasks/claim")).toHaveLength(3);
    expect(t.err()).toContain("iterations=3 completed=1 failed=0 idle_polls=2");
  });

  it("on SIGTERM kills the agent's process group, releases the task (shutdown) and exits 130", async () => {
    if (!existsSync(join(root, "agent/dist/cli/main.js"))) throw new Error("build first: npx tsc -b");
    const cp = await scriptedControlPlane();
    servers.push(cp);
    const pidFile = join(scratch, "agent.pids");
    const child = spawn(process.execPath, [join(root, "agent/bin/whilly-worker.js"), "--plan", "demo"], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        WHILLY_CONTROL_URL: cp.url,
        WHILLY_WORKER_TOKEN: token,
        CLAUDE_BIN: join(root, "test/fixtures/fake-agents/hang.mjs"),
        FAKE_AGENT_PID_FILE: pidFile,
        WHILLY_CLAUDE_KILL_GRACE_MS: "500",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const pids = await waitFor(() => (existsSync(pidFile) ? readFileSync(pidFile, "utf8") : undefined));
    const [agentPid, grandchildPid] = pids.split(" ").map(Number);
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(alive(agentPid ?? 0)).toBe(false);
    expect(alive(grandchildPid ?? 0)).toBe(false);
    const release = cp.seen.find((s) => s.path === "/tasks/T-1/release");
    expect(release?.body).toEqual({ worker_id: "w-7", plan_id: "demo", version: 2, reason: "shutdown" });
    expect(err).toContain("released_on_shutdown=1");
    expect(err).toContain(
      "whilly-worker: SIGTERM received; stopping the agent on T-1 and handing the task back (again to force)\n",
    );
  });
});

async function waitFor<T>(check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** True while the process runs; a zombie (exited, not yet reaped) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
