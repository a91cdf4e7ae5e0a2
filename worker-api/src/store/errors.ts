import { ConfigurationError, InvalidInput, StoreUnavailable, WhillyError } from "@whilly/core";

/** The parts of a Postgres error the store reads (node-postgres and PGlite both carry these). */
type PgErrorFields = { code: string; constraint?: unknown; message?: unknown };

/** One translation: which SQLSTATE (and constraint) it covers, and the error it makes. */
type Rule = {
  readonly matches: (code: string, constraint: unknown) => boolean;
  readonly make: (message: string, cause: unknown) => WhillyError;
};

/** Socket-level failures from node-postgres and Node's net module. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
]);
/** node-postgres reports some lost connections with a message and no code. */
const LOST_CONNECTION = /Connection terminated|connection timeout|Client has encountered a connection error/i;

const RULES: readonly Rule[] = [
  {
    // Connection exceptions (08), operator intervention such as a server shutdown (57P), too many clients.
    matches: (code) =>
      SOCKET_CODES.has(code) || code.startsWith("08") || code.startsWith("57P") || code === "53300",
    make: (message, cause) =>
      new StoreUnavailable(`the database is unavailable: ${message}`, {
        cause,
        hint: "check that Postgres is running and WHILLY_DATABASE_URL points at it",
      }),
  },
  {
    // A full disk (53100), no memory (53200), an I/O error (58030): the database's machine is short.
    matches: (code) => code === "53100" || code === "53200" || code === "58030",
    make: (message, cause) =>
      new StoreUnavailable(`the database cannot write: ${message}`, {
        cause,
        hint: "free space (or memory) on the machine that holds the database, then run again: for the embedded store that is the disk of .whilly/ (df -h shows it)",
      }),
  },
  {
    matches: (code) => code === "40001" || code === "40P01",
    make: (message, cause) =>
      new StoreUnavailable(`a concurrent change got in the way; try again (${message})`, { cause }),
  },
  {
    // 22021: invalid byte sequence (a NUL in text); 22P05: untranslatable character (\u0000 in jsonb).
    matches: (code) => code === "22021" || code === "22P05",
    make: (message, cause) =>
      new InvalidInput("text", `Postgres cannot store this text: ${message}`, {
        cause,
        hint: "remove NUL characters (\\u0000) and unpaired surrogates from the plan or payload",
      }),
  },
  {
    matches: (code) => code === "22003",
    make: (message, cause) => new InvalidInput("amount", `a number is out of range: ${message}`, { cause }),
  },
  {
    matches: (code, constraint) => code === "23503" && constraint === "tasks_claimed_by_workers_worker_id_fk",
    make: (_message, cause) =>
      new InvalidInput("workerId", "the worker is not registered", {
        cause,
        hint: "register the worker before it claims tasks",
      }),
  },
  {
    matches: (code, constraint) => code === "23505" && constraint === "workers_token_hash_unique",
    make: (_message, cause) =>
      new InvalidInput("tokenHash", "another worker already holds this token", { cause }),
  },
  {
    matches: (code, constraint) => code === "23505" && constraint === "read_tokens_token_hash_unique",
    make: (_message, cause) =>
      new InvalidInput("tokenHash", "another read token already has this hash", { cause }),
  },
  {
    // Undefined table or column: the schema is older than this whilly.
    matches: (code) => code === "42P01" || code === "42703",
    make: (message, cause) =>
      new ConfigurationError(`the database schema is missing or out of date: ${message}`, {
        cause,
        hint: "run `whilly db migrate` against this database",
      }),
  },
  {
    // No such database, or the login was refused (28xxx).
    matches: (code) => code === "3D000" || code.startsWith("28"),
    make: (message, cause) =>
      new ConfigurationError(`the database refused the connection: ${message}`, {
        cause,
        hint: "check the database name, user and password in WHILLY_DATABASE_URL",
      }),
  },
];

/**
 * Turns a driver error into whilly's error tree; a {@link WhillyError} passes through, and anything not
 * recognised is returned unchanged (a bug to fix, not a condition to handle). drizzle wraps driver errors
 * in `DrizzleQueryError`, with the Postgres error (and its SQLSTATE `code`) on `cause`. Messages carry the
 * server's text, never the query's parameters.
 */
export function translateError(error: unknown): unknown {
  if (error instanceof WhillyError) return error;
  const pg = postgresError(error);
  if (pg === undefined) {
    const message = error instanceof Error ? error.message : String(error);
    return LOST_CONNECTION.test(message)
      ? new StoreUnavailable(`the database connection failed: ${message}`, { cause: error })
      : error;
  }
  const message = typeof pg.message === "string" ? `${pg.message} (${pg.code})` : pg.code;
  const rule = RULES.find((candidate) => candidate.matches(pg.code, pg.constraint));
  return rule ? rule.make(message, error) : error;
}

/** The SQLSTATE of the Postgres error inside `error` (e.g. `3D000`), if there is one. */
export function sqlState(error: unknown): string | undefined {
  return postgresError(error)?.code;
}

/** The Postgres error inside `error`: itself, or on its `cause` chain (drizzle wraps once). */
function postgresError(error: unknown): PgErrorFields | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const fields = current as { code?: unknown; cause?: unknown };
    if (typeof fields.code === "string") return fields as PgErrorFields;
    current = fields.cause;
  }
  return undefined;
}

/** SQLSTATEs of an aborted transaction that wrote nothing: deadlock detected, serialization failure. */
const RETRYABLE = new Set(["40P01", "40001"]);

/**
 * Runs `op`, and once more when Postgres aborted it as a deadlock or serialization failure: the
 * statement or transaction was rolled back whole, so running it again cannot apply it twice. The lock
 * order of docs/claim.md keeps these rare; a second failure is answered (as `StoreUnavailable`).
 */
export async function retryOnce<R>(op: () => Promise<R>): Promise<R> {
  try {
    return await op();
  } catch (error) {
    const code = postgresError(error)?.code;
    if (code === undefined || !RETRYABLE.has(code)) throw error;
    return op();
  }
}
