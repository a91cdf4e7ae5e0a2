import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startPglite } from "../worker-api/src/store/open/embedded.js";
import { prepareTemplate, probePostgres } from "../worker-api/src/store/testing/databases.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the test Postgres server, or null when it is unreachable (its tests skip). */
    pgUrl: string | null;
    /** Name of the migrated template database that test databases are copied from. */
    pgTemplate: string | null;
  }
}

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres";
/** Set once the run's cache directory is made (see {@link setup}). */
const CACHE_OWNER = "WHILLY_TEST_CACHE_OWNER";

/**
 * Runs once per `vitest` run. Finds the test Postgres (`WHILLY_TEST_DATABASE_URL`, default the local
 * server with trust auth) and builds the migrated template. Without Postgres, its tests are skipped with
 * a loud notice on a laptop, and the run fails under CI (`CI=true`), where skipping would hide them.
 * Also makes the run's own `WHILLY_CACHE_DIR` (inherited by the test files and the `whilly` processes
 * they start) holding the embedded store's template, so new embedded stores start from it; it is
 * removed at the end.
 * @returns the teardown.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Each project of the run calls this; the first makes the cache, the others share it.
  const made = process.env[CACHE_OWNER] === undefined;
  const cacheDir = made
    ? mkdtempSync(join(tmpdir(), "whilly-test-cache-"))
    : String(process.env.WHILLY_CACHE_DIR);
  process.env.WHILLY_CACHE_DIR = cacheDir;
  process.env[CACHE_OWNER] = String(process.pid);
  const teardown = () => {
    if (made) rmSync(cacheDir, { recursive: true, force: true });
  };
  const template = made
    ? startPglite(undefined, cacheDir).then(({ client }) => client.close())
    : Promise.resolve();
  try {
    await setupPostgres(project);
    await template;
  } catch (error) {
    await template.catch(() => {});
    teardown();
    throw error;
  }
  return teardown;
}

/** Finds the test Postgres and provides `pgUrl` and `pgTemplate` (see {@link setup}). */
export async function setupPostgres(project: TestProject): Promise<void> {
  const url = process.env.WHILLY_TEST_DATABASE_URL || DEFAULT_URL;
  const problem = await probePostgres(url);
  if (problem !== undefined) {
    const where = redact(url);
    if (process.env.CI === "true") {
      throw new Error(`Postgres for the tests is unreachable at ${where}: ${problem} (CI=true needs it)`);
    }
    console.warn(
      [
        "",
        "!".repeat(78),
        `!! Postgres is unreachable at ${where}: ${problem}`,
        "!! Every test against real Postgres is SKIPPED in this run (PGlite tests still run).",
        "!! Start Postgres or set WHILLY_TEST_DATABASE_URL; under CI=true this is an error.",
        "!".repeat(78),
        "",
      ].join("\n"),
    );
    project.provide("pgUrl", null);
    project.provide("pgTemplate", null);
    return;
  }
  project.provide("pgUrl", url);
  project.provide("pgTemplate", await prepareTemplate(url));
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable WHILLY_TEST_DATABASE_URL)";
  }
}
