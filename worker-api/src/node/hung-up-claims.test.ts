import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../test/support/db.js";
import { inProcessAuth } from "../auth/in-process.js";
import { plan, task } from "../store/contract/helpers.contract.js";
import { openPostgresStore } from "../store/open/postgres.js";
import type { Store } from "../store/store.js";
import { startNodeServer } from "./server.js";
import { parseServerSettings } from "./settings.js";

const CLAIMERS = 60;
const TASKS = 30;
/** Clients hang up at a random moment within this window (ms) around the tasks becoming ready. */
const ABORT_WINDOW_MS = 60;

/** What one claimer saw: a task's id when its reply arrived, or that it hung up first. */
type Outcome = { workerId: string; taskId?: string; hungUp: boolean };

/**
 * A parked claim over real HTTP that hangs up after `abortAfterMs` (if given) unless its reply arrived.
 * Client and server share this process's event loop (a busy server: the hang-ups reach it late), so
 * before hanging up it lets the loop read what the server already wrote: a reply written before the
 * hang-up counts as delivered, as it would to a client reading its socket; the server must hand back
 * every task whose reply was not.
 */
function parkedClaim(
  url: string,
  workerId: string,
  planId: string,
  abortAfterMs: number | undefined,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let answered = false;
    const req = request(`${url}/tasks/claim`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const taskId =
          res.statusCode === 200 ? (JSON.parse(text) as { task: { id: string } }).task.id : undefined;
        resolve({ workerId, hungUp: false, ...(taskId ? { taskId } : {}) });
      });
    });
    req.on("error", () => resolve({ workerId, hungUp: true }));
    if (abortAfterMs !== undefined) {
      setTimeout(() => {
        // Two turns of the event loop: a reply written before this turn's poll is read by the next.
        setImmediate(() =>
          setImmediate(() => {
            if (answered) return;
            req.destroy();
            resolve({ workerId, hungUp: true });
          }),
        );
      }, abortAfterMs);
    }
    req.end(JSON.stringify({ worker_id: workerId, plan_id: planId, start: true }));
  });
}

let db: TestDatabase | undefined;
let store: Store | undefined;

beforeAll(async () => {
  if (!postgresAvailable()) return;
  db = await createTestDatabase();
  store = await openPostgresStore(db.url, { max: 8 });
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe.skipIf(!postgresAvailable())("parked claims whose clients hang up (Node server, Postgres)", () => {
  it(`leave no task held for a client that hung up, over ${CLAIMERS} claimers and ${TASKS} tasks`, async () => {
    if (!store) throw new Error("no store");
    const s = store;
    const settings = parseServerSettings({
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "hung-up-claims-bootstrap",
      WHILLY_CLAIM_TIMEOUT: "1",
      WHILLY_CLAIM_RECHECK: "600",
    });
    const server = await startNodeServer({ store: s, settings, auth: inProcessAuth, port: 0 });
    try {
      // The plan exists with one task blocking the rest, so every claim parks until it is done.
      const specs = [
        task("gate"),
        ...Array.from({ length: TASKS }, (_, i) => task(`t${i}`, { deps: ["gate"] })),
      ];
      await s.importPlan(plan("p", specs));
      for (const workerId of ["gatekeeper", ...Array.from({ length: CLAIMERS }, (_, i) => `w${i}`)]) {
        await s.upsertWorker({ workerId, hostname: "h" });
      }
      const gate = await s.claimWithPlan({
        planId: "p",
        workerId: "gatekeeper",
        leaseMs: 60_000,
        start: true,
      });
      if (!gate) throw new Error("gate not claimed");

      const parkMs = 150;
      // Every other claimer hangs up at a random moment around the gate's completion; the rest wait.
      const outcomes = Array.from({ length: CLAIMERS }, (_, i) =>
        parkedClaim(server.url, `w${i}`, "p", i % 2 ? parkMs + Math.random() * ABORT_WINDOW_MS : undefined),
      );
      await new Promise((resolve) => setTimeout(resolve, parkMs + ABORT_WINDOW_MS / 2));
      await s.complete({
        planId: "p",
        taskId: "gate",
        workerId: "gatekeeper",
        version: gate.task.version,
        costMicroUsd: 0,
      });

      const seen = await Promise.all(outcomes);

      const told = new Map(seen.filter((o) => o.taskId).map((o) => [o.taskId, o.workerId]));
      const held = (await s.listTasks("p")).filter(
        (t) => t.status === "CLAIMED" || t.status === "IN_PROGRESS",
      );
      // Held by a worker that never read the reply: its client hung up first.
      const strandedWithGoneClients = held.filter((t) => told.get(t.id) !== t.claimedBy);
      // The race must have been run: some clients hung up, and some were handed tasks.
      expect(seen.filter((o) => o.hungUp).length).toBeGreaterThan(0);
      expect(told.size).toBeGreaterThan(0);
      expect(strandedWithGoneClients.map((t) => [t.id, t.claimedBy])).toEqual([]);
      // Every task handed back had its attempt given back: only the delivered claim counted one.
      for (const t of await s.listTasks("p")) {
        if (t.id !== "gate") expect([t.id, t.attempts]).toEqual([t.id, t.status === "PENDING" ? 0 : 1]);
      }
    } finally {
      await server.close(1000);
    }
  });
});
