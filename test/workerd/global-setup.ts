import { readFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { startNeonWsProxy } from "../../scripts/neon-ws-proxy.mjs";
import { startTestIssuer } from "../../worker-api/src/auth/testing/oidc-issuer.js";
import {
  createDatabaseFrom,
  dropDatabase,
  prepareTemplate,
  probePostgres,
} from "../../worker-api/src/store/testing/databases.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Runs once before the workerd project: copies the migrated template into a fresh database and starts
 * the Neon WebSocket proxy in front of the test Postgres; the Worker under test gets both as bindings,
 * and the JWKS URL of a test OIDC issuer served here (its signing key goes to the tests).
 * Without Postgres the tests that need it skip with a notice, and under CI (`CI=true`) the run fails.
 * @returns the teardown: stop the proxy and the issuer, drop the database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const issuer = await startTestIssuer();
  project.provide("oidcJwksUrl", issuer.jwksUrl);
  project.provide("oidcPrivateJwk", issuer.privateJwk);
  // workerd has no file system: the asset test compares what `/` serves with the file built by `npm ci`.
  project.provide(
    "webIndexHtml",
    readFileSync(new URL("../../web/dist/index.html", import.meta.url), "utf8"),
  );
  const database = await setupDatabase(project).catch(async (error: unknown) => {
    await issuer.close();
    throw error;
  });
  return async () => {
    await database?.();
    await issuer.close();
  };
}

async function setupDatabase(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const adminUrl = process.env.WHILLY_TEST_DATABASE_URL || DEFAULT_URL;
  const problem = await probePostgres(adminUrl);
  if (problem !== undefined) {
    if (process.env.CI === "true") {
      throw new Error(`Postgres for the workerd tests is unreachable: ${problem} (CI=true needs it)`);
    }
    console.warn(
      `!! Postgres is unreachable (${problem}): the workerd tests that need it are SKIPPED in this run.`,
    );
    project.provide("workerdDatabaseUrl", null);
    project.provide("neonWsProxy", null);
    return undefined;
  }
  const database = await createDatabaseFrom(adminUrl, await prepareTemplate(adminUrl));
  const server = new URL(adminUrl);
  const proxy = await startNeonWsProxy({
    allow: [`${server.hostname}:${server.port || "5432"}`],
    control: true,
  });
  project.provide("workerdDatabaseUrl", database.url);
  project.provide("neonWsProxy", proxy.address);
  return async () => {
    await proxy.close();
    await dropDatabase(adminUrl, database.name);
  };
}
