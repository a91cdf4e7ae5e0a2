import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import {
  InvalidInput,
  NotOwner,
  PlanInvalid,
  PlanNotFound,
  StoreUnavailable,
  WhillyError,
} from "@whilly/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { plan, task } from "../contract/helpers.contract.js";
import { pgliteReadyListener } from "../ready/listen-pglite.js";
import { EVENTS_CHANNEL } from "../ready/signal-ready.js";
import { describeTaskStoreContract } from "../store.contract.js";
import type { Store } from "../store.js";
import { openPgliteFixture, type StoreFixture } from "../testing/fixtures.js";
import { BearerNotStored } from "../workers/presented-bearer.js";
import { decode, decodeError, encode, encodeError } from "./codec.js";
import { connectLocalStore } from "./connect.js";
import { STORE_METHODS } from "./methods.js";
import { type LocalStoreServer, MAX_CALLS_IN_FLIGHT, serveStoreLocally } from "./serve.js";

let fixture: StoreFixture;
beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const dirs: string[] = [];
function whillyDir(name = ".whilly"): string {
  const dir = mkdtempSync(join(tmpdir(), "whilly-sock-test-"));
  dirs.push(dir);
  const whilly = join(dir, name);
  mkdirSync(whilly, { recursive: true, mode: 0o700 });
  return whilly;
}
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The methods called through a socket in this file: every one of the Store interface must be. */
const called = new Set<string>();

type Served = { proxy: Store; store: Store; server: LocalStoreServer; dir: string };

/** `store` (a fresh database by default) served on a socket, and reached through it. */
async function served(dir = whillyDir(), store?: Store): Promise<Served> {
  const owned = store ?? (await fixture.fresh());
  const server = serveStoreLocally(dir, Promise.resolve(owned));
  if (!server) throw new Error("not served");
  const proxy = await connectLocalStore(dir);
  if (!proxy) throw new Error("not connected");
  const recording = { ...proxy } as Record<string, unknown>;
  for (const [name, value] of Object.entries(proxy)) {
    if (typeof value === "function" && name !== "close") {
      recording[name] = (...args: unknown[]) => {
        called.add(name);
        return (value as (...args: unknown[]) => unknown)(...args);
      };
    }
  }
  return { proxy: recording as unknown as Store, store: owned, server, dir };
}

afterAll(() => {
  const remote = Object.entries(STORE_METHODS).filter(([, kind]) => kind !== "local");
  expect(remote.map(([name]) => name).filter((name) => !called.has(name))).toEqual([]);
});

// The contract through the socket, the groups that call every method between them (the rest is
// called below): arguments, results and errors as the store itself gives them. PGlite runs it whole.
describeTaskStoreContract("PGlite through the local socket", async () => {
  const { proxy, server } = await served();
  return { ...proxy, close: async () => Promise.all([proxy.close(), server.close()]).then(() => {}) };
}, ["fencing", "events", "workers", "readTokens", "claimLost", "budget", "operatorActions", "taskEvents"]);

describe("the local socket", () => {
  let current: Served | undefined;
  const now = (): Served => {
    if (!current) throw new Error("served in beforeEach");
    return current;
  };
  beforeEach(async () => {
    current = await served();
  });
  afterEach(async () => {
    await current?.proxy.close();
    await current?.server.close();
  });

  it("is a socket only its user may use (0600), and goes with close()", async () => {
    const { server, dir } = now();
    expect(server.path).toBe(join(dir, "whilly.sock"));
    expect(statSync(server.path).mode & 0o777).toBe(0o600);
    await now().proxy.close();
    await server.close();
    expect(() => statSync(server.path)).toThrow();
    expect(await connectLocalStore(dir)).toBeUndefined();
  });

  it("re-creates the store's errors as the same classes, with their fields", async () => {
    const { proxy } = now();
    const missing = await proxy.setPlanBudget("nope", 1).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PlanNotFound);
    expect(missing).toBeInstanceOf(WhillyError);
    expect(missing).toMatchObject({
      code: "plan_not_found",
      planId: "nope",
      message: "plan 'nope' not found",
    });
    expect((missing as PlanNotFound).hint).toContain("whilly plan list");
    const bad = await proxy.setPlanMaxAttempts("nope", 0).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(WhillyError);
    const invalid = decodeError(
      encodeError(new PlanInvalid("f.json", [{ path: "tasks[0]", message: "bad" }])),
    );
    expect(invalid).toBeInstanceOf(PlanInvalid);
    expect(invalid).toMatchObject({ source: "f.json", issues: [{ path: "tasks[0]", message: "bad" }] });
    const notOwner = decodeError(encodeError(new NotOwner("T", "w1", undefined, 3, "CLAIMED")));
    expect(notOwner).toBeInstanceOf(NotOwner);
    expect(notOwner).toMatchObject({ ownerId: undefined, version: 3, status: "CLAIMED" });
    expect(decodeError(encodeError(new BearerNotStored()))).toBeInstanceOf(BearerNotStored);
    const system = decodeError(encodeError(Object.assign(new Error("disk"), { code: "ENOSPC", path: "/x" })));
    expect(system).toMatchObject({ message: "disk", code: "ENOSPC", path: "/x" });
  });

  it("round-trips what JSON cannot say: dates, undefined apart from null, bigint, bytes, odd numbers", () => {
    const value = {
      at: new Date("2026-01-02T03:04:05.678Z"),
      gone: undefined,
      none: null,
      list: [undefined, null, 1],
      big: 12345678901234567890n,
      bytes: new Uint8Array([0, 1, 255]),
      odd: [Number.NaN, Number.POSITIVE_INFINITY, -0],
      $w: "a key that looks like a tag",
      nested: { when: new Date(0) },
    };
    const back = decode(JSON.parse(JSON.stringify(encode(value)))) as typeof value;
    expect(back).toEqual(value);
    expect(Object.hasOwn(back, "gone")).toBe(true);
    expect(Object.is(back.odd[2], -0)).toBe(true);
    expect(back.at).toBeInstanceOf(Date);
  });

  it("answers the methods the contract groups above leave out as the store itself does", async () => {
    const { proxy, store } = now();
    const both = async <R>(call: (s: Store) => Promise<R>): Promise<R> => {
      const remote = await call(proxy);
      expect(remote).toStrictEqual(await call(store));
      return remote;
    };
    await proxy.createPlan({ id: "p", name: "P" });
    expect((await both((s) => s.setPlanMaxAttempts("p", 2))).maxAttempts).toBe(2);
    await both((s) => s.findPlanByIssueRef("o/r/1"));
    await both((s) => s.listPlans());
    await both((s) => s.listBlocked("p"));
    await both((s) => s.listTasks("p"));
    await both((s) => s.findClaimedPlans("w", "T-1"));
    await both((s) => s.listWaiting("p", { onlineWithinMs: 1000 }));
    await both((s) => s.hasReadyForOthers("p", {}));
    await both((s) =>
      s.readMetrics({
        onlineWithinMs: 60_000,
        failReasons: ["x"],
        otherReason: "other",
        durationBoundsSeconds: [1],
      }),
    );
    const head = await both((s) => s.settledHead("p"));
    await both((s) => s.readSettledEvents(head, { planId: "p", limit: 10 }));
    await both((s) => s.cursorAfterEvent(0, "p"));
    await both((s) => s.releaseOfflineWorkers(60_000));
    await both((s) => s.releaseWorkerTasks("w", "test", { silentForMs: undefined }));
    await both((s) => s.releaseExpiredLeases());
    expect(await proxy.resetPlan("p", "hard")).toBe(0);
  });

  it("calls the client's callbacks: an import's progress, and event signals until the listener closes", async () => {
    await current?.proxy.close();
    await current?.server.close();
    // The fixture's store with PGlite's own subscriptions, as the embedded store has them.
    const client = (fixture.db as unknown as { $client: PGlite }).$client;
    const listening: Store = {
      ...(await fixture.fresh()),
      listenForReady: pgliteReadyListener(client),
      listenForEvents: pgliteReadyListener(client, EVENTS_CHANNEL),
    };
    current = await served(whillyDir(), listening);
    const { proxy } = current;
    const signals: (string | undefined)[] = [];
    const { listenForEvents, listenForReady } = proxy;
    if (!listenForEvents || !listenForReady) throw new Error("the proxy lacks the store's subscriptions");
    const listener = await listenForEvents((planId) => signals.push(planId));
    const ready = await listenForReady(() => {});
    await ready.close();
    const progress: number[] = [];
    await proxy.importPlan(plan("p", [task("T-1"), task("T-2")]), {
      onProgress: (stored) => progress.push(stored),
    });
    await proxy.createPlan({ id: "q", name: "Q" });
    await proxy.appendEvent({ planId: "q", eventType: "x.test", payload: {} });
    await expect.poll(() => signals).toContain("q");
    expect(signals[0]).toBeUndefined();
    expect(progress.length).toBeGreaterThan(0);
    await listener.close();
    await listener.close();
  });

  it("refuses a method outside the Store interface, and close(), however asked", async () => {
    const { server } = now();
    const socket = connect(server.path);
    const lines: string[] = [];
    socket
      .setEncoding("utf8")
      .on("data", (chunk: string) => lines.push(...chunk.split("\n").filter(Boolean)));
    for (const [id, m] of ["constructor", "close", "__proto__", "toString", "driver"].entries())
      socket.write(`${JSON.stringify({ t: "call", id, m, a: [] })}\n`);
    await expect.poll(() => lines.length).toBe(6);
    socket.destroy();
    const [hello, ...answers] = lines.map((line) => JSON.parse(line));
    expect(hello).toMatchObject({ t: "hello", v: 1, driver: "pglite" });
    for (const answer of answers) {
      expect(answer.t).toBe("err");
      const error = decodeError(answer.e);
      expect(error).toBeInstanceOf(InvalidInput);
      expect(error.message).toMatch(/serves no method/);
    }
    // The store is still open: close() from a client closed nothing but its connection.
    expect(await now().proxy.listPlans()).toEqual([]);
  });

  it("ends a peer's connection, never the owner, for frames that are no object, and for pipelining without reading", async () => {
    const { server } = now();
    const closed = (lines: string[]) =>
      new Promise<void>((resolve) => {
        const socket = connect(server.path);
        socket.on("close", () => resolve()).on("error", () => {});
        socket.once("data", () => socket.write(lines.join("")));
      });
    for (const junk of ["null\n", "1\n", "[]\n", '"x"\n']) await closed([junk]);
    const call = (id: number) => `${JSON.stringify({ t: "call", id, m: "listPlans", a: [] })}\n`;
    await closed(Array.from({ length: MAX_CALLS_IN_FLIGHT + 1 }, (_, id) => call(id)));
    expect(await now().proxy.listPlans()).toEqual([]);
  });

  it("fails calls under way with StoreUnavailable when the owner goes", async () => {
    const { proxy, server } = now();
    await server.close();
    await expect(proxy.listPlans()).rejects.toBeInstanceOf(StoreUnavailable);
  });
});

describe("finding the owner's socket", () => {
  it("advertises a socket in a private temp directory when .whilly/ is too deep for one", async () => {
    const deep = whillyDir(join("x".repeat(60), "y".repeat(40), ".whilly"));
    const { proxy, server } = await served(deep);
    try {
      expect(server.path.startsWith(tmpdir())).toBe(true);
      expect(statSync(join(server.path, "..")).mode & 0o777).toBe(0o700);
      expect(statSync(join(deep, "socket")).mode & 0o777).toBe(0o600);
      expect(await proxy.listPlans()).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
    expect(() => statSync(join(deep, "socket"))).toThrow();
    expect(() => statSync(join(server.path, ".."))).toThrow();
  });

  it("serves no one, and leaves the file alone, when a file that is no socket holds its path", async () => {
    const dir = whillyDir();
    const file = join(dir, "whilly.sock");
    writeFileSync(file, "keep me", { mode: 0o644 });
    expect(serveStoreLocally(dir, Promise.resolve(await fixture.fresh()))).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("keep me");
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it("finds nothing at a stale socket (ECONNREFUSED) or a file that is no socket", async () => {
    const dir = whillyDir();
    // A killed owner's socket: the file stays, nothing listens.
    const listenThenDie = `require("node:net").createServer().listen(process.argv[1], () => process.kill(process.pid, "SIGKILL"))`;
    spawnSync(process.execPath, ["-e", listenThenDie, join(dir, "whilly.sock")]);
    expect(statSync(join(dir, "whilly.sock")).isSocket()).toBe(true);
    expect(await connectLocalStore(dir)).toBeUndefined();
    writeFileSync(join(dir, "socket"), "/nonexistent/s.sock\n");
    expect(await connectLocalStore(dir)).toBeUndefined();
  });
});
