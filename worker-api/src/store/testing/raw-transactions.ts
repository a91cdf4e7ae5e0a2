/** A transaction of its own on the test database, for writing events the way a concurrent writer does. */
export type RawTransaction = {
  /** Makes the transaction take its transaction id now (before any write), as a writer's first update does. */
  takeXid(): Promise<void>;
  /** Inserts one event of `planId` in this transaction. @returns its id. */
  insertEvent(planId: string, eventType: string): Promise<number>;
  commit(): Promise<void>;
};

/** What raw transactions need of a connection: pg's `query` (node-postgres and the Neon driver alike). */
type Queryable = {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
};

/** A pool of such connections: pg's `Pool` (node-postgres and the Neon driver alike). */
export type RawPool = Queryable & { connect(): Promise<Queryable & { release(): void }> };

/**
 * Transactions on connections of `pool`, so a test can hold them open and commit them in any order:
 * what concurrent control-plane requests do to the audit log.
 */
export function rawTransactions(pool: RawPool) {
  const insert = async (client: Queryable, planId: string, eventType: string) => {
    const result = await client.query(
      "INSERT INTO events (plan_id, event_type, payload) VALUES ($1, $2, '{}') RETURNING id",
      [planId, eventType],
    );
    return Number(result.rows[0]?.id);
  };
  return {
    /** Inserts one event in a transaction of its own. @returns its id. */
    insertEvent: (planId: string, eventType: string) => insert(pool, planId, eventType),
    /** Opens a transaction on a connection of its own, released at commit. */
    async begin(): Promise<RawTransaction> {
      const client = await pool.connect();
      await client.query("BEGIN");
      return {
        takeXid: async () => {
          await client.query("SELECT pg_current_xact_id()");
        },
        insertEvent: (planId, eventType) => insert(client, planId, eventType),
        async commit() {
          try {
            await client.query("COMMIT");
          } finally {
            client.release();
          }
        },
      };
    },
  };
}
