import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EVENT_TYPES } from "@whilly/core";
import { type FakeAnthropic, fakeClaudeEnv, startFakeAnthropic } from "@whilly/fake-anthropic";
import { openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processGone } from "../support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import {
  CLAUDE_BIN,
  cleanUp,
  gitWorkdir,
  PATH,
  type Proc,
  scratchDir,
  startNode,
  taskWorktree,
  WHILLY_BIN,
  WORKER_BIN,
  waitUntil,
  whilly,
  writePlan,
} from "./distributed-support.js";

// whilly-worker processes against a real `whilly server`, with the REAL Claude Code CLI whose scripted
// Bash command starts `sleep 30` and waits for it (Claude Code runs it in a session of its own). Checked
// by pid: after a shutdown, a revocation, or a kill -9 and a restart, nothing the agent started runs.
// And a worker whose agent is not logged in hands its task back with the attempt refunded and exits 2.
const BOOTSTRAP = "worker-contain-e2e-bootstrap-token-0123456789";
const SLEEPER =
  "if [ -e sleep.pid ]; then exit 0; fi; echo $WHILLY_ATTEMPT_ID > mark.txt; sleep 30 & echo $! > sleep.pid; wait $!; echo late > late.txt";

let db: TestDatabase;
let store: Store;
let url: string;
let fake: FakeAnthropic;
const leftovers: number[] = [];

type Identity = { workerId: string; token: string };
const env = () => ({ PATH, WHILLY_DATABASE_URL: db.url });

async function register(): Promise<Identity> {
  const { out } = await whilly(
    ["worker", "register", "--connect", url, "--bootstrap-token", BOOTSTRAP, "--json"],
    env(),
  );
  const parsed = JSON.parse(out) as { worker_id: string; token: string };
  return { workerId: parsed.worker_id, token: parsed.token };
}

async function importPlan(planId: string): Promise<void> {
  const file = writePlan({
    plan_id: planId,
    project: planId,
    tasks: [{ id: "S-1", status: "pending", priority: "high", description: "Sleep a while, then finish." }],
  });
  await whilly(["plan", "import", file], env());
}

function startWorker(
  who: Identity,
  planId: string,
  workdir: string,
  extra: Record<string, string | undefined> = {},
): Proc {
  const claude: Record<string, string | undefined> = {
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-"), path: PATH }),
    CLAUDE_BIN,
    WHILLY_MODEL: "claude-sonnet-4-6",
    WHILLY_CONTROL_URL: url,
    WHILLY_WORKER_TOKEN: who.token,
    WHILLY_CLAUDE_KILL_GRACE_MS: "200",
    // Each start gets a fresh HOME (so the default state directory would differ): name one per workdir.
    WHILLY_STATE_DIR: join(dirname(workdir), "state"),
    ...extra,
  };
  const defined = Object.fromEntries(Object.entries(claude).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const argv = ["--plan", planId, "--workdir", workdir, "--heartbeat-interval", "1", "--task-timeout", "2m"];
  return startNode(WORKER_BIN, argv, { cwd: workdir, env: defined });
}

/** The agent's `sleep` in the worktree of `planId`'s task, once it started, and its attempt id. */
async function sleeper(workdir: string, planId: string): Promise<{ pid: number; attemptId: string }> {
  const dir = taskWorktree(workdir, planId, "S-1");
  const pidFile = join(dir, "sleep.pid");
  await waitUntil("the agent's sleep", async () => (existsSync(pidFile) ? true : undefined), 30_000);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  leftovers.push(pid);
  return { pid, attemptId: readFileSync(join(dir, "mark.txt"), "utf8").trim() };
}

/** Live processes carrying `WHILLY_ATTEMPT_ID=<id>`, read from /proc. */
function marked(id: string): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const environ = readFileSync(`/proc/${n}/environ`, "latin1").split("\0");
        return environ.includes(`WHILLY_ATTEMPT_ID=${id}`) && !processGone(Number(n));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(!postgresAvailable() || process.platform !== "linux")(
  "whilly-worker: the machine's faults",
  () => {
    beforeAll(async () => {
      db = await createTestDatabase();
      const server = startNode(WHILLY_BIN, ["server", "--port", "0"], {
        cwd: scratchDir("whilly-server-"),
        env: { ...env(), WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP, WHILLY_CLAIM_RECHECK: "1" },
      });
      const [, serverUrl] = await server.waitForOut(/^(https?:\/\/\S+)$/m);
      url = serverUrl ?? "";
      store = await openPostgresStore(db.url, { max: 2 });
      fake = await startFakeAnthropic({
        script: {
          default: {
            turns: [
              { tool_use: { name: "Bash", input: { command: SLEEPER, description: "sleep" } } },
              { text: "Done. <promise>COMPLETE</promise>" },
            ],
          },
        },
      });
    }, 90_000);
    afterEach(() => {
      for (const pid of leftovers.splice(0)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone, as it should be.
        }
      }
    });
    afterAll(async () => {
      await cleanUp();
      await fake?.close();
      await store?.close();
      await db?.drop();
    });

    it("SIGTERM (shutdown) ends the agent's Bash command and hands the task back", async () => {
      const who = await register();
      await importPlan("w-term");
      const workdir = gitWorkdir("term");
      const worker = startWorker(who, "w-term", workdir);
      const { pid, attemptId } = await sleeper(workdir, "w-term");
      worker.child.kill("SIGTERM");
      expect((await worker.ended).code).toBe(130);
      expect(processGone(pid)).toBe(true);
      expect(marked(attemptId)).toEqual([]);
      expect((await store.getTask("w-term", "S-1"))?.status).toBe("PENDING");
    });

    it("a revoked worker (its heartbeat refused) ends the agent's Bash command", async () => {
      const who = await register();
      await importPlan("w-revoke");
      const workdir = gitWorkdir("revoke");
      const worker = startWorker(who, "w-revoke", workdir);
      const { pid, attemptId } = await sleeper(workdir, "w-revoke");
      await whilly(["worker", "revoke", who.workerId], env());
      const ended = await worker.ended;
      expect(ended.code, ended.err).toBe(2);
      expect(processGone(pid)).toBe(true);
      expect(marked(attemptId)).toEqual([]);
    });

    it("after kill -9, the worker started on the same state directory ends the orphans and says so", async () => {
      const who = await register();
      await importPlan("w-kill");
      const workdir = gitWorkdir("kill");
      const first = startWorker(who, "w-kill", workdir);
      const { pid, attemptId } = await sleeper(workdir, "w-kill");
      first.child.kill("SIGKILL");
      await first.ended;
      expect(processGone(pid)).toBe(false);
      leftovers.push(...marked(attemptId));

      const second = startWorker(who, "w-kill", workdir);
      await waitUntil(
        "the orphans ended",
        async () =>
          /ended \d+ process\(es\) left running by 1 attempt\(s\)/.test(second.err()) ? true : undefined,
        20_000,
      );
      expect(second.err()).toMatch(
        /whilly-worker: ended \d+ process\(es\) left running by 1 attempt\(s\) of a worker that is gone\n/,
      );
      expect(processGone(pid)).toBe(true);
      expect(marked(attemptId)).toEqual([]);
      second.child.kill("SIGTERM");
      await second.ended;
    });

    it("an agent that is not logged in leaves the task PENDING with no attempt used; the worker exits 2 with a hint", async () => {
      const who = await register();
      await importPlan("w-login");
      const workdir = gitWorkdir("login");
      const worker = startWorker(who, "w-login", workdir, { ANTHROPIC_API_KEY: undefined });
      const ended = await worker.ended;
      expect(ended.code, ended.err).toBe(2);
      expect(ended.err).toContain("Not logged in");
      expect(ended.err).toContain("hint: run `claude /login` or set ANTHROPIC_API_KEY");
      expect(await store.getTask("w-login", "S-1")).toMatchObject({ status: "PENDING", attempts: 0 });
      const events = await store.listEvents("w-login");
      expect(events.map((e) => e.eventType)).not.toContain("FAIL");
      // Heartbeat events go through the event buffer: one from before the release may land after it.
      const audit = events.filter((e) => e.eventType !== EVENT_TYPES.workerHeartbeat);
      expect(audit.at(-1)).toMatchObject({ eventType: "RELEASE", payload: { reason: "agent_unavailable" } });
    });
  },
);
