import { type FakeAnthropic, type FakeScript, startFakeAnthropic } from "@whilly/fake-anthropic";
import { openPostgresStore } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, removeAll, spawnBin } from "../support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.js";
import { forgeEnv, github, PLAN_ID, REF } from "./forge-support.js";
import { MODEL_PRD, VALID_PLAN } from "./init-support.js";

// Two `whilly forge intake` processes of one issue at the same moment, on one Postgres: one plan is
// stored, the issue is flipped once and commented on once; the loser stores and changes nothing.

const SCRIPT: FakeScript = {
  generate: {
    prd: { turns: [{ text: MODEL_PRD }] },
    plan: { turns: [{ text: JSON.stringify(VALID_PLAN) }] },
  },
};

let fake: FakeAnthropic;
let db: TestDatabase | undefined;
beforeAll(async () => {
  fake = await startFakeAnthropic({ script: SCRIPT });
  if (postgresAvailable()) db = await createTestDatabase();
});
afterAll(async () => {
  await fake?.close();
  await db?.drop();
  removeAll();
});

describe.skipIf(!postgresAvailable())("two forge intakes of one issue at once", () => {
  it("store one plan, flip the labels once and comment once; the loser says another intake won", async () => {
    const url = db?.url ?? "";
    // Each intake waits in `gh issue view` after its store check, so both pass the check before either stores.
    const { env, gh } = forgeEnv(
      fake,
      github({}, { failures: [{ args: ["issue", "view"], sleep_ms: 2000, pass: true }] }),
    );
    const run = (dir: string) =>
      spawnBin(["forge", "intake", REF, "--json"], { cwd: dir, env: { ...env, WHILLY_DATABASE_URL: url } })
        .done;
    const results = await Promise.all([run(makeRepo()), run(makeRepo())]);
    for (const result of results) expect(result.code, result.err).toBe(0);
    const outcomes = results.map((r) => JSON.parse(r.out) as { outcome: string; created: boolean });
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["created", "lost_race"]);

    expect(gh.callsOf("issue", "view")).toHaveLength(2);
    expect(gh.callsOf("issue", "edit")).toHaveLength(1);
    expect(gh.callsOf("issue", "comment")).toHaveLength(1);
    const issue = gh.state().repos?.["acme/widgets"]?.issues?.[0];
    expect(issue?.labels).toEqual(["enhancement", "whilly-in-progress"]);
    expect(issue?.comments).toHaveLength(2);

    const store = await openPostgresStore(url);
    try {
      expect((await store.listPlans()).map((p) => p.id)).toEqual([PLAN_ID]);
      expect((await store.listTasks(PLAN_ID)).map((t) => t.id)).toEqual(["T-1", "T-2", "T-3"]);
      const events = await store.listEvents(PLAN_ID);
      expect(events.filter((e) => e.eventType === "plan.created")).toHaveLength(1);
      expect(events.filter((e) => e.eventType === "task.created")).toHaveLength(3);
    } finally {
      await store.close();
    }
  }, 120_000);
});
