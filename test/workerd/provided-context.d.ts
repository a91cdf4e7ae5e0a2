// What the workerd project's global setup hands to the Worker's bindings and to the tests.
declare module "vitest" {
  export interface ProvidedContext {
    /** The workerd project's database (a fresh copy of the migrated template), or null without Postgres. */
    workerdDatabaseUrl: string | null;
    /** `host:port` of the WebSocket-to-TCP proxy the Neon driver reaches Postgres through. */
    neonWsProxy: string | null;
  }
}

export {};
