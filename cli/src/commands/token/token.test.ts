import { createApp, createTokenAuth, openPostgresStore, type Store } from "@whilly/worker-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, removeAll, runCli, scratchDir } from "../../../../test/support/cli.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../../../test/support/db.js";

const BOOTSTRAP = "cli-token-test-bootstrap";

afterAll(removeAll);

describe.skipIf(!postgresAvailable())("whilly token (Postgres)", () => {
  let database: TestDatabase;
  let store: Store;
  let env: Record<string, string | undefined>;
  let cwd: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
    env = baseEnv({ WHILLY_DATABASE_URL: database.url });
    cwd = scratchDir();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** The read API's answer to `token`, from a control plane over the same database. */
  async function readStatus(token: string): Promise<number> {
    const app = createApp({
      withStore: (use) => use(store),
      auth: createTokenAuth({ bootstrapToken: BOOTSTRAP }),
      settings: { leaseMs: 60_000, claimWaitMs: 0, claimRecheckMs: 1000 },
    });
    const response = await app.request("/api/v1/plans", { headers: { authorization: `Bearer ${token}` } });
    await response.body?.cancel();
    return response.status;
  }

  it("create prints a token once that reads; list shows it without the token; revoke refuses it at once", async () => {
    const created = await runCli(["token", "create", "--read-only", "--label", "dashboard"], { cwd, env });
    expect(created.code).toBe(0);
    const token = created.out.trim();
    expect(token).toMatch(/^whilly_read_[A-Za-z0-9_-]{40,}$/);
    const id = /token '([^']+)'/.exec(created.err)?.[1] ?? "";
    expect(id).toMatch(/^rt-/);
    expect(await readStatus(token)).toBe(200);

    const listed = await runCli(["token", "list", "--json"], { cwd, env });
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain(token);
    expect(JSON.parse(listed.out).tokens).toEqual([
      { id, label: "dashboard", created_at: expect.any(String), revoked_at: null },
    ]);

    const revoked = await runCli(["token", "revoke", id], { cwd, env });
    expect(revoked).toMatchObject({
      code: 0,
      out: `revoked read-only token '${id}': it is refused from now on.\n`,
    });
    expect(await readStatus(token)).toBe(401);
    const again = await runCli(["token", "revoke", id, "--json"], { cwd, env });
    expect(JSON.parse(again.out)).toEqual({ id, revoked: false });
    const table = await runCli(["token", "list"], { cwd, env });
    expect(table.out).toMatch(new RegExp(`${id}\\s+dashboard\\s+\\S+\\s+revoked `));
  });

  it("create without --read-only and revoke of an unknown id are refused", async () => {
    const bare = await runCli(["token", "create"], { cwd, env });
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("pass --read-only");
    const unknown = await runCli(["token", "revoke", "rt-nope"], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("no read-only token 'rt-nope'");
  });
});
