import pg from "pg";
import { type RawPool, rawTransactions } from "./raw-transactions.js";

export type { RawTransaction } from "./raw-transactions.js";

/**
 * Raw node-postgres connections to a test database (a pool of `max`), so a test can hold transactions
 * open and commit them in any order (see {@link rawTransactions}).
 */
export function rawEventWriter(url: string, max = 12) {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {});
  return { ...rawTransactions(pool as unknown as RawPool), close: () => pool.end() };
}
