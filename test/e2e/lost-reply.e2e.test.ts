import { existsSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  CLAUDE_BIN,
  checkoutOf,
  cleanUp,
  gitWorkdir,
  PATH,
  scratchDir,
  startNode,
  WHILLY_BIN,
  WORKER_BIN,
  waitUntil,
  whilly,
  workOf,
  writePlan,
} from "./distributed-support.js";

// A claim whose reply never reaches its worker, every part a real process: `whilly server` on a fresh
// Postgres database and `whilly-worker` running the real Claude Code CLI against the scripted fake
// model, talking through a proxy in this test that forwards everything but loses the first claim's
// reply after the server committed it, as when the control plane dies between commit and reply. The
// lease is ten minutes, so within the test only the worker's heartbeats (every 100 ms, naming what it
// runs) can return the task. The interval stays above a claim reply's time on a loaded machine: a reply
// slower than a whole interval would also be read as lost.
const BOOTSTRAP = "lost-reply-e2e-bootstrap-token-0123456789";

/** A proxy to `upstream` that cuts the connection instead of passing on the first 200 to a claim. */
async function lossyProxy(upstream: string): Promise<{ url: string; lost: () => number; server: Server }> {
  let lost = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const forward = request(
        `${upstream}${req.url ?? "/"}`,
        { method: req.method, headers: { ...req.headers, host: new URL(upstream).host } },
        (reply) => {
          const body: Buffer[] = [];
          reply.on("data", (chunk: Buffer) => body.push(chunk));
          reply.on("end", () => {
            if (req.url === "/tasks/claim" && reply.statusCode === 200 && lost === 0) {
              lost += 1;
              req.socket.destroy();
              return;
            }
            res.writeHead(reply.statusCode ?? 502, reply.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forward.on("error", () => req.socket.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, lost: () => lost, server };
}

let db: TestDatabase;
let store: Store;
let fake: FakeAnthropic;
let proxy: Awaited<ReturnType<typeof lossyProxy>>;
let token: string;
let workerId: string;

describe.skipIf(!postgresAvailable())("a claim whose reply was lost", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const env = { PATH, WHILLY_DATABASE_URL: db.url };
    const server = startNode(WHILLY_BIN, ["server", "--port", "0"], {
      cwd: scratchDir("whilly-server-"),
      env: {
        ...env,
        WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
        WHILLY_VISIBILITY_TIMEOUT: "600",
        WHILLY_HEARTBEAT_TIMEOUT: "600",
        WHILLY_CLAIM_RECHECK: "1",
      },
    });
    const [, url] = await server.waitForOut(/^(https?:\/\/\S+)$/m);
    const { out } = await whilly(
      ["worker", "register", "--connect", url ?? "", "--bootstrap-token", BOOTSTRAP, "--json"],
      env,
    );
    ({ worker_id: workerId, token } = JSON.parse(out) as { worker_id: string; token: string });
    const plan = {
      plan_id: "lost",
      project: "lost",
      tasks: [
        {
          id: "LOST-1",
          status: "pending",
          priority: "high",
          description: "Write LOST.md.",
          test_steps: ["test -s LOST.md"],
        },
      ],
    };
    await whilly(["plan", "import", writePlan(plan)], env);
    store = await openPostgresStore(db.url, { max: 2 });
    proxy = await lossyProxy(url ?? "");
    fake = await startFakeAnthropic({
      script: {
        tasks: {
          "LOST-1": {
            turns: [
              { tool_use: { name: "Write", input: { file_path: "{{cwd}}/LOST.md", content: "done\n" } } },
              { text: "Wrote LOST.md. <promise>COMPLETE</promise>" },
            ],
          },
        },
      },
    });
  }, 90_000);

  afterAll(async () => {
    await cleanUp();
    await fake?.close();
    proxy?.server.close();
    await store?.close();
    await db?.drop();
  });

  it("is released (claim_lost) within a few heartbeats, then done by the same worker", async () => {
    const workdir = gitWorkdir("lost-reply");
    const worker = startNode(
      WORKER_BIN,
      ["--plan", "lost", "--workdir", workdir, "--heartbeat-interval", "0.1", "--task-timeout", "2m"],
      {
        cwd: workdir,
        env: {
          ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-"), path: PATH }),
          CLAUDE_BIN,
          WHILLY_MODEL: "claude-sonnet-4-6",
          WHILLY_CONTROL_URL: proxy.url,
          WHILLY_WORKER_TOKEN: token,
          WHILLY_CLAUDE_KILL_GRACE_MS: "1000",
        },
      },
    );
    await waitUntil(
      "LOST-1 DONE",
      async () => ((await store.getTask("lost", "LOST-1"))?.status === "DONE" ? true : undefined),
      60_000,
    );
    worker.child.kill("SIGTERM");
    await worker.ended;

    expect(proxy.lost()).toBe(1);
    const events = await store.listEvents("lost", { limit: 1000 });
    // The agent worked in a worktree of the workdir: its work is the commit the completion reports.
    const { commit } = workOf(events.find((e) => e.eventType === "COMPLETE"));
    expect(existsSync(join(checkoutOf(workdir, commit), "LOST.md"))).toBe(true);
    const transitions = events.filter((e) => ["CLAIM", "START", "RELEASE", "COMPLETE"].includes(e.eventType));
    expect(transitions.map((e) => e.eventType)).toEqual([
      "CLAIM",
      "START",
      "RELEASE",
      "CLAIM",
      "START",
      "COMPLETE",
    ]);
    expect(transitions[2]?.payload).toMatchObject({
      reason: "claim_lost",
      worker_id: workerId,
      attempt_returned: true,
    });
    // The lost claim never ran the agent: its attempt was given back, so only the run that did counts.
    expect((await store.getTask("lost", "LOST-1"))?.attempts).toBe(1);
  }, 90_000);
});
