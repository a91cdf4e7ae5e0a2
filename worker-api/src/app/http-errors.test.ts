import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessAuth } from "../auth/in-process.js";
import type { Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { openUnreachableStore } from "../store/testing/unreachable.js";
import { createApp } from "./app.js";

// A closed port refuses at once; the driver's message then names the host, port, user and database.
const URL = "postgres://whilly_user:hunter2secret@127.0.0.1:1/whilly_db";
const SECRETS = ["hunter2secret", "whilly_user", "127.0.0.1", "whilly_db", "ECONNREFUSED"];

let unreachable: Store;
beforeAll(() => {
  unreachable = openUnreachableStore(URL);
});
afterAll(async () => unreachable.close());

describe("503 store_unavailable", () => {
  const routes: [string, string, object | undefined][] = [
    ["POST", "/tasks/claim", { worker_id: "w1", plan_id: "p" }],
    ["POST", "/tasks/A/complete", { worker_id: "w1", plan_id: "p", version: 1 }],
    ["POST", "/tasks/A/release", { worker_id: "w1", version: 1, reason: "r" }],
    ["POST", "/workers/w1/heartbeat", { worker_id: "w1" }],
    ["GET", "/api/v1/plans", undefined],
    ["GET", "/api/v1/plans/p/events", undefined],
  ];

  it.each(routes)(
    "%s %s tells the client only to try again; the log keeps the cause",
    async (method, path, body) => {
      const logged: [string, string, object | undefined][] = [];
      const log: Logger = (level, event, fields) => void logged.push([level, event, fields]);
      const app = createApp({
        withStore: (use) => use(unreachable),
        auth: inProcessAuth,
        settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
        log,
      });
      const reply = await app.request(path, {
        method,
        ...(body ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}),
      });
      expect(reply.status).toBe(503);
      const envelope = await reply.json();
      expect(envelope).toEqual({
        error_code: "store_unavailable",
        detail: "the task store is unavailable; try again",
        task_id: null,
      });
      expect(logged).toHaveLength(1);
      expect(logged[0]?.[1]).toBe("http.store_unavailable");
      expect(JSON.stringify(logged[0]?.[2])).toContain("ECONNREFUSED");
      for (const secret of SECRETS) expect(JSON.stringify(envelope)).not.toContain(secret);
      expect(JSON.stringify(logged)).not.toContain("hunter2secret");
    },
  );
});
