import { getTableColumns, type SQL, sql, type Table } from "drizzle-orm";

/**
 * Reading rows of hand-written statements (`db.execute(sql...)`) as drizzle would have read them. The
 * hot-path operations are single statements with data-modifying CTEs, which the query builder cannot
 * express; their answers come back as raw driver rows, decoded here by each column's own
 * `mapFromDriverValue` so the records equal those of a builder query on every driver.
 */

/** A table's columns as a select list, each aliased `<prefix><column>`, for one row holding two tables. */
export function prefixedColumns(table: Table, alias: string, prefix: string): SQL {
  const list = Object.values(getTableColumns(table))
    .map((column) => `${alias}."${column.name}" AS "${prefix}${column.name}"`)
    .join(", ");
  return sql.raw(list);
}

/**
 * The drizzle row of `table` within a raw row selected with {@link prefixedColumns}.
 * @returns `undefined` when the row holds no such table (a left join that matched nothing: the
 *   primary key's first column is null).
 */
export function fromPrefixed<T extends Table>(
  table: T,
  raw: Record<string, unknown>,
  prefix: string,
): T["$inferSelect"] | undefined {
  const columns = Object.entries(getTableColumns(table));
  const out: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = raw[`${prefix}${column.name}`];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  const firstKey = columns[0]?.[0];
  return firstKey === undefined || out[firstKey] === null ? undefined : (out as T["$inferSelect"]);
}

/** Rows of a raw `db.execute` result; node-postgres, PGlite and Neon all put them on `rows`. */
export function rawRows(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}

/**
 * Fixed statuses as SQL literals (`'PENDING', 'CLAIMED'`). Literals rather than parameters so that the
 * planner can match the claim's partial index (`status = 'PENDING'`) whatever plan it caches.
 * @throws {Error} for a status that is not a bare upper-case word (never user input).
 */
export function statusList(statuses: readonly string[]): SQL {
  for (const status of statuses) {
    if (!/^[A-Z_]+$/.test(status)) throw new Error(`not a task status: ${status}`);
  }
  return sql.raw(statuses.map((status) => `'${status}'`).join(", "));
}
