import { MAX_NESTING, parsePlanObject } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import { routeHarness } from "../testing/route-harness.js";

// A worker's free-form `detail` over HTTP: a value nested deeper than a plan's extra fields may be is
// refused with a 422 naming the field, where it used to overflow the stack (a 500).
let fixture: StoreFixture;
let store: Store;

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());

beforeEach(async () => {
  store = await fixture.fresh();
  await store.upsertWorker({ workerId: "w1", hostname: "h" });
  const plan = parsePlanObject(
    { project: "p", tasks: [{ id: "A", status: "pending", priority: "low", description: "a" }] },
    "test",
  );
  await store.importPlan(plan);
});

const { post: postJson } = routeHarness(() => store);

/** `{"d":{"d":...{"d":1}}}` with `levels` objects, written out so no JSON.stringify recursion is needed. */
function nested(levels: number): string {
  return `${'{"d":'.repeat(levels - 1)}{"d":1}${"}".repeat(levels - 1)}`;
}

/** The fields of a reply these tests read. */
type Reply = { task: { version: number }; error_code: string; detail: string };

async function post(path: string, body: string): Promise<{ status: number; body: Reply }> {
  return postJson(path, body);
}

async function claim(): Promise<number> {
  const claimed = await post("/tasks/claim", JSON.stringify({ worker_id: "w1", plan_id: "p" }));
  expect(claimed.status).toBe(200);
  return claimed.body.task.version;
}

describe("detail nesting", () => {
  for (const route of ["complete", "fail"] as const) {
    it(`${route}: 2000 levels is a 422 naming detail, ${MAX_NESTING} is accepted`, async () => {
      const version = await claim();
      const fields = `"worker_id":"w1","plan_id":"p","version":${version}${route === "fail" ? ',"reason":"r"' : ""}`;
      const deep = await post(`/tasks/A/${route}`, `{${fields},"detail":${nested(2000)}}`);
      expect(deep.status).toBe(422);
      expect(deep.body.error_code).toBe("invalid_input");
      expect(deep.body.detail).toBe(
        `invalid request body: detail: nested more than ${MAX_NESTING} levels deep`,
      );
      const fine = await post(`/tasks/A/${route}`, `{${fields},"detail":${nested(MAX_NESTING)}}`);
      expect(fine.status).toBe(200);
    });
  }
});
