/** drizzle's wrapper of a failed statement: its message is the whole SQL and every parameter. */
const FAILED_QUERY = /^Failed query:/;
/** How much of a thrown non-Error value's JSON a report shows. */
const MAX_VALUE_CHARS = 500;

/**
 * The error a report should show: drizzle's `DrizzleQueryError` (any error whose message starts with
 * `Failed query:`) replaced by its `cause`, the driver's error, which says what went wrong. The wrapper's
 * message holds the statement's parameters (a plan's text, a token's hash), so it never reaches a log:
 * without a cause it becomes `a database query failed` and nothing more.
 */
export function unwrapQueryError(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && isQueryError(current); depth++) {
    const cause = (current as { cause?: unknown }).cause;
    if (cause === undefined || cause === null) return new Error("a database query failed");
    current = cause;
  }
  return current;
}

/**
 * The text of an error no handler recognised (a bug), for `unexpected failure ...` reports and log
 * lines: the stack of an `Error` (after {@link unwrapQueryError}), or a readable form of any other
 * thrown value, e.g. `ErrnoError {"errno":51}` rather than `[object Object]`.
 */
export function describeUnexpected(error: unknown): string {
  const shown = unwrapQueryError(error);
  if (shown instanceof Error) return shown.stack ?? `${shown.name}: ${shown.message}`;
  if (typeof shown !== "object" || shown === null) return String(shown);
  const name = (shown as { name?: unknown }).name ?? shown.constructor?.name ?? "object";
  return `${String(name)} ${valueText(shown)}`;
}

/**
 * One line for a log's `error` field: `Name: message` of an `Error` (after {@link unwrapQueryError}),
 * else as {@link describeUnexpected}.
 */
export function errorSummary(error: unknown): string {
  const shown = unwrapQueryError(error);
  return shown instanceof Error ? String(shown) : describeUnexpected(shown);
}

function isQueryError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && FAILED_QUERY.test(message);
}

function valueText(value: object): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle, or a getter that throws: its keys still say what it was.
    text = `{${Object.keys(value).join(", ")}}`;
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}...` : text;
}
