import { ConfigurationError } from "@whilly/core";
import pg from "pg";
import { sqlState, translateError } from "../errors.js";

/** The database every Postgres server has, where `CREATE DATABASE` is run from. */
const MAINTENANCE_DB = "postgres";

/**
 * Creates the database `url` names on its server (`whilly db migrate --create`), connecting to the
 * server's `postgres` maintenance database with the same user and password. An existing database is
 * left as it is.
 * @returns whether it was created now (false: it existed), and its name.
 * @throws {ConfigurationError} when the URL names no database, or the user may not create one.
 * @throws {StoreUnavailable} when the server cannot be reached.
 */
export async function createPostgresDatabase(url: string): Promise<{ created: boolean; name: string }> {
  const { name, maintenanceUrl } = databaseOf(url);
  const client = new pg.Client({ connectionString: maintenanceUrl });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    return { created: true, name };
  } catch (error) {
    // 42P04: it exists already; 23505: another process created it at the same moment.
    const state = sqlState(error);
    if (state === "42P04" || state === "23505") return { created: false, name };
    if (state === "42501") {
      throw new ConfigurationError(`the user in WHILLY_DATABASE_URL may not create the database '${name}'`, {
        cause: error,
        hint: `ask the server's administrator to run: createdb ${createdbFlags(url)} ${name}`,
      });
    }
    throw translateError(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The error for a database that is not on its server (SQLSTATE 3D000): what to run to create it.
 * @returns `undefined` for any other error.
 */
export function missingDatabaseError(url: string, error: unknown): ConfigurationError | undefined {
  if (sqlState(error) !== "3D000") return undefined;
  let name: string;
  try {
    name = databaseOf(url).name;
  } catch {
    return undefined;
  }
  return new ConfigurationError(`the database '${name}' does not exist on ${serverOf(url)}`, {
    cause: error,
    hint: `create it with \`createdb ${createdbFlags(url)} ${name}\`, or run \`whilly db migrate --create\``,
  });
}

/** The database a `postgres://` URL names, and the URL of its server's maintenance database. */
function databaseOf(url: string): { name: string; maintenanceUrl: string } {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (name === "" || name === MAINTENANCE_DB) {
    throw new ConfigurationError("WHILLY_DATABASE_URL names no database of its own to create", {
      hint: "end the URL with the database's name, e.g. postgres://user@host:5432/whilly",
    });
  }
  parsed.pathname = `/${MAINTENANCE_DB}`;
  return { name, maintenanceUrl: parsed.toString() };
}

/** `host:port` of the URL, for messages; never its password. */
function serverOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}`;
}

/** `createdb`'s connection flags for the URL's server and user (never its password). */
function createdbFlags(url: string): string {
  const parsed = new URL(url);
  const flags = [`-h ${parsed.hostname || "localhost"}`, `-p ${parsed.port || "5432"}`];
  if (parsed.username !== "") flags.push(`-U ${decodeURIComponent(parsed.username)}`);
  return flags.join(" ");
}

function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
