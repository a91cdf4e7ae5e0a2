import { parsePlanObject } from "@whilly/core";
import { createApp, createTokenAuth, openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { baseEnv, removeAll, runCli, scratchDir } from "../../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../../test/support/db.js";
import { serveOnLoopback } from "../../../../worker-api/src/app/testing/serve-loopback.js";
import { openPgliteFixture, type StoreFixture } from "../../../../worker-api/src/store/testing/fixtures.js";

const BOOTSTRAP = "cli-test-bootstrap-token";

/** A real control plane on a free localhost port, over `store`. */
async function startServer(store: () => Store): Promise<{ url: string; close(): Promise<void> }> {
  const app = createApp({
    withStore: (use) => use(store()),
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
    settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
  });
  return serveOnLoopback(app);
}

/** Claims a task of plan `p` over HTTP with `token`, as whilly-worker would. */
async function claimWith(url: string, token: string, workerId: string): Promise<number> {
  const response = await fetch(`${url}/tasks/claim`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ worker_id: workerId, plan_id: "p" }),
  });
  await response.body?.cancel();
  return response.status;
}

async function importPlan(store: Store): Promise<void> {
  const plan = parsePlanObject(
    { project: "p", tasks: [{ id: "A", status: "pending", priority: "high", description: "a" }] },
    "test",
  );
  await store.importPlan(plan);
}

afterAll(removeAll);

describe("whilly worker register", () => {
  let fixture: StoreFixture;
  let store: Store;
  let server: { url: string; close(): Promise<void> };
  let cwd: string;

  beforeAll(async () => {
    fixture = await openPgliteFixture();
    server = await startServer(() => store);
    cwd = scratchDir();
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });
  beforeEach(async () => {
    store = await fixture.fresh();
    await importPlan(store);
  });

  it("prints only the token on stdout, and that token works as the worker's bearer", async () => {
    const result = await runCli(
      ["worker", "register", "--connect", server.url, "--bootstrap-token", BOOTSTRAP, "--hostname", "box-1"],
      { cwd },
    );
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = result.out.trim();
    const workerId = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).sub;
    expect(result.err).toBe(`registered worker '${workerId}' (host box-1).\n`);
    const [worker] = await store.listWorkers();
    expect(worker).toMatchObject({ workerId, hostname: "box-1" });
    expect(await claimWith(server.url, token, workerId)).toBe(200);
  });

  it("reads the URL and the bootstrap token from the environment; --json prints id and token", async () => {
    const env = baseEnv({ WHILLY_CONTROL_URL: `${server.url}/`, WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP });
    const result = await runCli(["worker", "register", "--json"], { cwd, env });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.out);
    expect(Object.keys(body).sort()).toEqual(["token", "worker_id"]);
    expect(body.worker_id).toMatch(/^w-/);
    expect(await claimWith(server.url, body.token, body.worker_id)).toBe(200);
  });

  it("exits 2 naming the flag and the variable when the URL or the bootstrap token is missing", async () => {
    const noUrl = await runCli(["worker", "register", "--bootstrap-token", BOOTSTRAP], { cwd });
    expect(noUrl.code).toBe(2);
    expect(noUrl.out).toBe("");
    expect(noUrl.err).toContain("--connect");
    expect(noUrl.err).toContain("WHILLY_CONTROL_URL");

    const noToken = await runCli(["worker", "register", "--connect", server.url], { cwd });
    expect(noToken.code).toBe(2);
    expect(noToken.err).toContain("--bootstrap-token");
    expect(noToken.err).toContain("WHILLY_WORKER_BOOTSTRAP_TOKEN");

    const badUrl = await runCli(["worker", "register", "--connect", "ftp://x", "--bootstrap-token", "t"], {
      cwd,
    });
    expect(badUrl.code).toBe(2);

    // The same URLs whilly-worker refuses: credentials (never shown) and a query.
    const withPassword = server.url.replace("http://", "http://user:s3cret-pw@");
    for (const url of [withPassword, `${server.url}/?q=1`]) {
      const refused = await runCli(["worker", "register", "--connect", url, "--bootstrap-token", BOOTSTRAP], {
        cwd,
      });
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/^error: --connect \(WHILLY_CONTROL_URL\) must not /);
      expect(refused.err).not.toContain("s3cret-pw");
    }
    expect(await store.listWorkers()).toEqual([]);
  });

  it("exits 1 with a clear error when the bootstrap token is wrong", async () => {
    const result = await runCli(
      ["worker", "register", "--connect", server.url, "--bootstrap-token", "wrong"],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toContain("refused the bootstrap token (401)");
    expect(result.err).toContain("hint: ");
    expect(await store.listWorkers()).toEqual([]);
  });

  it("exits 1 when the control plane cannot be reached", async () => {
    const result = await runCli(
      ["worker", "register", "--connect", "http://127.0.0.1:1", "--bootstrap-token", BOOTSTRAP],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.err).toContain("cannot reach the control plane at http://127.0.0.1:1");
  });
});

describe.skipIf(!postgresAvailable())("whilly worker revoke (Postgres)", () => {
  let database: TestDatabase;
  let store: Store;
  let server: { url: string; close(): Promise<void> };
  let env: Record<string, string | undefined>;
  let cwd: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
    await importPlan(store);
    server = await startServer(() => store);
    env = baseEnv({ WHILLY_DATABASE_URL: database.url });
    cwd = scratchDir();
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    await database?.drop();
  });

  it("revokes at once: the next request with the token is 401, and the worker's task is back in PENDING", async () => {
    const registered = await runCli(
      ["worker", "register", "--connect", server.url, "--bootstrap-token", BOOTSTRAP, "--json"],
      { cwd },
    );
    const { worker_id, token } = JSON.parse(registered.out);
    expect(await claimWith(server.url, token, worker_id)).toBe(200);

    const revoked = await runCli(["worker", "revoke", worker_id], { cwd, env });
    expect(revoked.code).toBe(0);
    expect(revoked.out).toBe(
      `revoked worker '${worker_id}': its token is refused from now on.\nreturned 1 task(s) to PENDING: p/A\n`,
    );
    expect(await claimWith(server.url, token, worker_id)).toBe(401);
    expect((await store.getTask("p", "A"))?.status).toBe("PENDING");

    const again = await runCli(["worker", "revoke", worker_id, "--json"], { cwd, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toEqual({ worker_id, revoked: false, released: [] });
  });

  it("exits 2 for an empty worker id, before touching the store", async () => {
    const result = await runCli(["worker", "revoke", " "], { cwd, env });
    expect(result).toEqual({
      code: 2,
      out: "",
      err: "error: <worker_id> must not be empty\nhint: whilly worker revoke <worker_id>, with the id `whilly worker register` printed\n",
    });
  });

  it("exits 1 for an unknown worker id", async () => {
    const result = await runCli(["worker", "revoke", "w-nobody"], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toContain("no worker 'w-nobody' is registered");
  });
});
