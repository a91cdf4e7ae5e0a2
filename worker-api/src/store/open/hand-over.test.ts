import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreUnavailable } from "@whilly/core";
import { afterAll, expect, it } from "vitest";
import { connectLocalStore, requestHandOver } from "../local-socket/connect.js";
import { openEmbeddedStore } from "./embedded.js";
import { acquireStoreLock } from "./store-lock.js";

// The owner's side of a hand-over, in this process: a yielding owner answers, lets its calls under
// way finish, closes and releases the lock; an exclusive one refuses and keeps serving.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function whillyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "whilly-handover-"));
  dirs.push(dir);
  const whilly = join(dir, ".whilly");
  mkdirSync(whilly, { mode: 0o700 });
  return whilly;
}
const cacheDir = process.env.WHILLY_CACHE_DIR;

it("a yielding owner hands over: calls under way finish, later ones fail StoreUnavailable, the lock goes", async () => {
  const whilly = whillyDir();
  const dataDir = join(whilly, "pgdata");
  let handingOver: (released: Promise<void>) => void = () => {};
  // Settles when the hand-over has begun and the lock is released (a promise adopts the one given).
  const released = new Promise<void>((resolve) => {
    handingOver = resolve;
  });
  const store = await openEmbeddedStore(dataDir, {
    cacheDir,
    serveLocally: whilly,
    command: "dashboard",
    onHandOver: (done) => handingOver(done),
  });
  const underWay = store.createPlan({ id: "kept", name: "written while handing over" });
  expect(await requestHandOver(whilly, 5_000)).toBe("accepted");
  await underWay;
  await released;
  await expect(store.listPlans()).rejects.toBeInstanceOf(StoreUnavailable);
  expect(await connectLocalStore(whilly)).toBeUndefined();
  // The lock is free: the new owner takes it and finds what was written.
  acquireStoreLock(dataDir).release();
  const next = await openEmbeddedStore(dataDir, { cacheDir });
  expect((await next.getPlan("kept"))?.name).toBe("written while handing over");
  await next.close();
  await store.close();
});

it("an exclusive owner refuses to hand over and keeps serving", async () => {
  const whilly = whillyDir();
  const store = await openEmbeddedStore(join(whilly, "pgdata"), {
    cacheDir,
    serveLocally: whilly,
    command: "run",
  });
  expect(await requestHandOver(whilly, 5_000)).toBe("refused");
  const client = await connectLocalStore(whilly);
  expect(await client?.listPlans()).toEqual([]);
  await client?.close();
  await store.close();
  expect(await requestHandOver(whilly, 5_000)).toBe("no-answer");
});
