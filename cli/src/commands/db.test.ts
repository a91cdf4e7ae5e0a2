import { afterAll, describe, expect, inject, it } from "vitest";
import { baseEnv, removeAll, runBin, scratchDir } from "../../../test/support/cli.js";
import { postgresAvailable } from "../../../test/support/db.js";
import { dropDatabase } from "../../../worker-api/src/store/testing/databases.js";

// `whilly db migrate` against a Postgres server whose database does not exist yet.
const names: string[] = [];
afterAll(async () => {
  const admin = inject("pgUrl");
  if (admin !== null) for (const name of names) await dropDatabase(admin, name);
  removeAll();
});

/** A URL on the test server naming a database that does not exist. */
function missingDatabase(): { name: string; url: string } {
  const name = `whilly_test_missing_${process.pid}_${names.length}`;
  names.push(name);
  const url = new URL(inject("pgUrl") ?? "");
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

describe.skipIf(!postgresAvailable())("whilly db migrate on a database that does not exist", () => {
  it("fails with exit 2 and a hint that says how to create it", async () => {
    const { name, url } = missingDatabase();
    const parsed = new URL(url);
    const result = await runBin(["db", "migrate"], {
      cwd: scratchDir(),
      env: baseEnv({ WHILLY_DATABASE_URL: url }),
    });
    expect(result).toMatchObject({
      code: 2,
      out: "",
      err:
        `error: the database '${name}' does not exist on ${parsed.hostname}:${parsed.port || "5432"}\n` +
        `hint: create it with \`createdb -h ${parsed.hostname} -p ${parsed.port || "5432"}${parsed.username ? ` -U ${parsed.username}` : ""} ${name}\`, or run \`whilly db migrate --create\`\n`,
    });
    // Any other command on it says the same.
    const list = await runBin(["plan", "list"], {
      cwd: scratchDir(),
      env: baseEnv({ WHILLY_DATABASE_URL: url }),
    });
    expect(list.code).toBe(2);
    expect(list.err).toContain("whilly db migrate --create");
  });

  it("--create creates it and migrates it; run again, it is left as it is", async () => {
    const { name, url } = missingDatabase();
    const env = baseEnv({ WHILLY_DATABASE_URL: url });
    const first = await runBin(["db", "migrate", "--create"], { cwd: scratchDir(), env });
    expect(first.code).toBe(0);
    expect(first.out).toMatch(
      new RegExp(
        `^created database '${name}'\\.\\ndatabase migrated \\(\\d+ migration\\(s\\) applied\\)\\.\\n$`,
      ),
    );
    const second = await runBin(["db", "migrate", "--create"], { cwd: scratchDir(), env });
    expect(second).toMatchObject({
      code: 0,
      out: `database '${name}' exists.\ndatabase migrated (0 migration(s) applied).\n`,
      err: "",
    });
    // Other commands open it: every migration is applied.
    const list = await runBin(["plan", "list", "--json"], { cwd: scratchDir(), env });
    expect(list).toMatchObject({ code: 0, out: "[]\n" });
  });
});
