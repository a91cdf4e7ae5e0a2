import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  connectLocalStore,
  type LocalStoreServer,
  openInMemoryStore,
  type Store,
  serveStoreLocally,
} from "@whilly/worker-api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { waitFor } from "../../../test/support/cli.js";
import { plan, task } from "../../../worker-api/src/store/contract/helpers.contract.js";
import { type OpenReason, switchingStore } from "./switching-store.js";

// The switching store over real backings: one in-memory PGlite served on two local sockets, the
// first of which stops (its owner gone), as a long-lived command sees when a run ends.

let database: Store;
const dirs: string[] = [];
beforeAll(async () => {
  database = await openInMemoryStore({ cacheDir: process.env.WHILLY_CACHE_DIR });
});
afterAll(async () => {
  await database?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function serve(): { dir: string; server: LocalStoreServer } {
  const dir = mkdtempSync(join(tmpdir(), "whilly-switch-test-"));
  dirs.push(dir);
  const server = serveStoreLocally(dir, Promise.resolve(database));
  if (!server) throw new Error("not served");
  return { dir, server };
}

/** A switching store that reaches `first`, then `next`; `reasons` records each opening's reason. */
async function switching(first: string, next: string, options: { followLoss: boolean }) {
  const reasons: OpenReason["kind"][] = [];
  const store = await switchingStore(async (reason, switchAway) => {
    reasons.push(reason.kind);
    const dir = reasons.length === 1 ? first : next;
    const onLost = options.followLoss ? () => switchAway({ kind: "lost" }) : undefined;
    const proxy = await connectLocalStore(dir, { onLost });
    if (!proxy) throw new Error(`nothing serves ${dir}`);
    return proxy;
  });
  return { store, reasons };
}

it("moves to the next owner when the one it used stops, re-making subscriptions", async () => {
  const one = serve();
  const two = serve();
  const { store, reasons } = await switching(one.dir, two.dir, { followLoss: true });
  const signals: (string | undefined)[] = [];
  const listener = await store.listenForEvents?.((planId) => signals.push(planId));
  await database.importPlan(plan("before", [task("B-1")]));
  await waitFor("the first signal", () => (signals.includes("before") ? true : undefined));

  await one.server.close();
  await waitFor("the switch", () => (reasons.length === 2 ? true : undefined));
  const afterSwitch = signals.length;
  await database.importPlan(plan("after", [task("A-1")]));
  await waitFor("a signal through the new owner", () => (signals.includes("after") ? true : undefined));
  // Told that signals may have been missed while it switched.
  expect(signals.slice(afterSwitch - 1)).toContain(undefined);
  expect(reasons).toEqual(["first", "lost"]);
  expect((await store.getPlan("after"))?.id).toBe("after");

  await listener?.close();
  await store.close();
  await two.server.close();
});

it("retries a call that found its owner gone once, on the next owner", async () => {
  const one = serve();
  const two = serve();
  await database.importPlan(plan("kept", [task("K-1")]));
  const { store, reasons } = await switching(one.dir, two.dir, { followLoss: false });
  await one.server.close();
  expect((await store.getPlan("kept"))?.id).toBe("kept");
  expect(reasons).toEqual(["first", "lost"]);
  await store.close();
  await two.server.close();
});
