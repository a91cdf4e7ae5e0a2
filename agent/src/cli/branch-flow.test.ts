import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPayload } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { gitIn, isolatedGitEnv, removeScratch, scratch } from "../workspace/testing/git-repo.js";
import { originWithClones } from "../workspace/testing/origin.js";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

const agents = fileURLToPath(new URL("../../../test/fixtures/fake-agents/", import.meta.url));
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-1" })}.sig`;
const gitEnv = isolatedGitEnv();
const git = (dir: string, ...args: string[]) => gitIn(gitEnv, dir, ...args);
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
  removeScratch();
});

const task: TaskPayload = {
  plan_id: "demo",
  id: "t-1",
  status: "IN_PROGRESS",
  priority: "high",
  description: "use the dependency's work",
  dependencies: ["t-0"],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 2,
  attempts: 1,
  claimed_by: "w-1",
  lease_expires_at: null,
};

/** A control plane that hands out `task` with `dependencyWork` once, then has nothing ready. */
async function controlPlane(dependencyWork: unknown[]) {
  const bodies: Record<string, Record<string, unknown>> = {};
  let claims = 0;
  const reply = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const path = req.url ?? "";
    bodies[path] = JSON.parse(text || "{}");
    if (path.startsWith("/api/v1/plans/")) return reply(res, 404, { detail: "no read API" });
    if (path.endsWith("/heartbeat")) return reply(res, 200, { ok: true });
    if (path === "/tasks/claim" && claims++ === 0)
      return reply(res, 200, { task, plan: null, dependency_work: dependencyWork });
    if (path === "/tasks/claim") return reply(res, 204);
    const status = path.endsWith("/complete") ? "DONE" : "PENDING";
    return reply(res, 200, { task: { ...task, status, version: 3 } });
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

function testIo(env: Record<string, string>) {
  let err = "";
  const io: WorkerIo = {
    out: { write: () => true },
    err: { write: (t: string) => (err += t) },
    env,
    cwd: scratch("whilly-worker-cwd-"),
  };
  return { io, err: () => err };
}

describe("whilly-worker's branch flow", () => {
  it("runs a task in a worktree holding its dependency's work, pushes its branch and reports it on complete", async () => {
    const { origin, clones } = originWithClones(gitEnv, 2);
    const [other, mine] = [clones[0] ?? "", clones[1] ?? ""];
    writeFileSync(join(other, "dep.txt"), "the dependency's work\n");
    git(other, "add", "dep.txt");
    git(other, "commit", "-q", "-m", "t-0's work");
    const dependency = {
      task_id: "t-0",
      branch: "whilly-tasks/demo/t-0",
      commit: git(other, "rev-parse", "HEAD"),
    };
    git(other, "push", "-q", "origin", `HEAD:refs/heads/${dependency.branch}`);
    const cp = await controlPlane([dependency]);
    const env = { ...gitEnv, CLAUDE_BIN: join(agents, "by-task.mjs"), WHILLY_WORKER_TOKEN: token };
    const t = testIo(env);
    const argv = ["--connect", cp.url, "--plan", "demo", "--once", "--workdir", mine, "--push"];
    argv.push("--verify", "test -f dep.txt", "--state-dir", scratch("whilly-state-"));
    expect(await workerMain(argv, t.io)).toBe(0);
    const branch = "whilly-tasks/demo/t-1";
    const commit = git(origin, "rev-parse", `refs/heads/${branch}`);
    expect(git(origin, "merge-base", "--is-ancestor", dependency.commit, commit)).toBe("");
    expect(cp.bodies["/tasks/t-1/complete"]).toMatchObject({ branch, commit, verification: "passed" });
    expect(t.err()).toContain(`whilly-worker: a worktree per task in ${mine} from `);
  });

  it("refuses --push outside a git clone, naming the flag, before any request", async () => {
    const t = testIo({ CLAUDE_BIN: join(agents, "success.mjs"), WHILLY_WORKER_TOKEN: token });
    const workdir = scratch("whilly-not-git-");
    const argv = ["--connect", "http://127.0.0.1:9", "--plan", "demo", "--workdir", workdir, "--push"];
    expect(await workerMain(argv, t.io)).toBe(2);
    expect(t.err()).toContain(`error: --push needs a git clone, and --workdir ${workdir} is not in one\n`);
  });
});
