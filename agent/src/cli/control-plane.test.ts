import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parsePlanObject } from "@whilly/core";
import { createApp, createTokenAuth, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { serveOnLoopback } from "../../../worker-api/src/app/testing/serve-loopback.js";
import { openPgliteFixture, type StoreFixture } from "../../../worker-api/src/store/testing/fixtures.js";
import type { AgentAttempt } from "../worker/types.js";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const BOOTSTRAP = "agent-test-bootstrap-token";
const done: AgentAttempt = { ok: true, reason: undefined, costMicroUsd: 0, aborted: false, detail: {} };

function testIo(env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const io: WorkerIo = {
    out: { write: (t: string) => (out += t) },
    err: { write: (t: string) => (err += t) },
    env,
    cwd: root,
  };
  return { io, out: () => out, err: () => err };
}

/** A port on which nothing listens: bound once to learn a free number, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let fixture: StoreFixture;
let store: Store;
let url: string;
let stopServer: () => Promise<void>;

beforeAll(async () => {
  fixture = await openPgliteFixture();
  const app = createApp({
    withStore: (use) => use(store),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
  const served = await serveOnLoopback(app);
  url = served.url;
  stopServer = served.close;
});
afterAll(async () => {
  await stopServer?.();
  await fixture?.close();
});
beforeEach(async () => {
  store = await fixture.fresh();
  const plan = {
    plan_id: "p 1",
    project: "p",
    tasks: [{ id: "A", status: "pending", priority: "high", description: "a" }],
  };
  await store.importPlan(parsePlanObject(plan, "test"));
});

describe("whilly-worker register", () => {
  it("prints only the token, which the worker then runs a task with", async () => {
    const t = testIo();
    const argv = ["register", "--connect", `${url}/`, "--bootstrap-token", BOOTSTRAP, "--hostname", "box-1"];
    expect(await workerMain(argv, t.io)).toBe(0);
    expect(t.out()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = t.out().trim();
    const [worker] = await store.listWorkers();
    expect(worker).toMatchObject({ hostname: "box-1" });
    expect(t.err()).toBe(`whilly-worker: registered worker '${worker?.workerId}' (host box-1)\n`);

    const run = testIo();
    const runArgv = ["--connect", url, "--token", token, "--plan", "p 1", "--once"];
    expect(await workerMain(runArgv, run.io, { makeRunAttempt: () => async () => done })).toBe(0);
    expect(run.err()).toContain(`worker '${worker?.workerId}' (from the token)`);
    expect((await store.getTask("p 1", "A"))?.status).toBe("DONE");
  });

  it("reads the URL and the bootstrap token from the environment; --json prints id and token", async () => {
    const t = testIo({ WHILLY_CONTROL_URL: url, WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP });
    expect(await workerMain(["register", "--json"], t.io)).toBe(0);
    const body = JSON.parse(t.out());
    expect(Object.keys(body).sort()).toEqual(["token", "worker_id"]);
    expect((await store.listWorkers()).map((w) => w.workerId)).toEqual([body.worker_id]);
    expect(t.err()).toBe("");
  });

  it("exits 2 naming the flag and the variable for a missing or bad URL or bootstrap token", async () => {
    const noUrl = testIo({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP });
    expect(await workerMain(["register"], noUrl.io)).toBe(2);
    expect(noUrl.err()).toContain("error: missing --connect (or WHILLY_CONTROL_URL)");
    expect(noUrl.err()).toContain(
      "hint: pass --connect or set WHILLY_CONTROL_URL; whilly-worker register --help",
    );

    const noToken = testIo({ WHILLY_CONTROL_URL: url, WHILLY_WORKER_BOOTSTRAP_TOKEN: " " });
    expect(await workerMain(["register"], noToken.io)).toBe(2);
    expect(noToken.err()).toContain("missing --bootstrap-token (or WHILLY_WORKER_BOOTSTRAP_TOKEN)");

    const badUrl = testIo();
    expect(await workerMain(["register", "--connect", "ftp://x", "--bootstrap-token", "t"], badUrl.io)).toBe(
      2,
    );
    expect(badUrl.err()).toContain("--connect (WHILLY_CONTROL_URL) must be an http(s) URL");

    const stray = testIo();
    expect(await workerMain(["register", "--plan", "p"], stray.io)).toBe(2);
    expect(stray.err()).toContain("hint: whilly-worker register --help lists the flags");
    for (const t of [noUrl, noToken, badUrl, stray]) expect(t.out()).toBe("");
    expect(await store.listWorkers()).toEqual([]);
  });

  it("exits 1 with a clear error when the bootstrap token is wrong or nothing listens", async () => {
    const wrong = testIo();
    expect(await workerMain(["register", "--connect", url, "--bootstrap-token", "wrong"], wrong.io)).toBe(1);
    expect(wrong.out()).toBe("");
    expect(wrong.err()).toContain(`error: the control plane at ${url} refused the bootstrap token (401)`);
    expect(wrong.err()).toContain("hint: pass the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN");
    expect(await store.listWorkers()).toEqual([]);

    const dead = `http://127.0.0.1:${await closedPort()}`;
    const down = testIo();
    expect(await workerMain(["register", "--connect", dead, "--bootstrap-token", BOOTSTRAP], down.io)).toBe(
      1,
    );
    expect(down.err()).toContain(
      `error: cannot reach the control plane at ${dead}: fetch failed (ECONNREFUSED)`,
    );
  });

  it("as a process, leaves only the token on stdout for TOKEN=$(whilly-worker register ...)", async () => {
    const bin = join(root, "agent/bin/whilly-worker.js");
    if (!existsSync(join(root, "agent/dist/cli/register.js"))) throw new Error("build first: npx tsc -b");
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [bin, "register", "--hostname", "h"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          WHILLY_CONTROL_URL: url,
          WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
        },
      },
    );
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(stderr).toMatch(/^whilly-worker: registered worker 'w-[\w-]+' \(host h\)\n$/);
  });
});

describe("whilly-worker's plan check", () => {
  it("exits 2 naming --plan, before any claim, when the control plane does not store the plan", async () => {
    const t = testIo();
    const register = testIo();
    await workerMain(
      ["register", "--connect", url, "--bootstrap-token", BOOTSTRAP, "--hostname", "h"],
      register.io,
    );
    const argv = ["--connect", url, "--token", register.out().trim(), "--plan", "p 2"];
    expect(await workerMain(argv, t.io, { makeRunAttempt: () => async () => done })).toBe(2);
    expect(t.err()).toContain(
      `error: --plan (WHILLY_PLAN_ID) 'p 2' is not a plan stored on the control plane at ${url}\n`,
    );
    expect(t.err()).toContain(
      "hint: check the id: whilly plan list on the control plane shows the stored plans",
    );
    expect(t.err()).toContain("finished — iterations=0 ");
    expect((await store.getTask("p 1", "A"))?.status).toBe("PENDING");
  });
});
