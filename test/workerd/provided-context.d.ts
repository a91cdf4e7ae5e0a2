// What the workerd project's global setup hands to the Worker's bindings and to the tests.
declare module "vitest" {
  export interface ProvidedContext {
    /** The workerd project's database (a fresh copy of the migrated template), or null without Postgres. */
    workerdDatabaseUrl: string | null;
    /** `host:port` of the WebSocket-to-TCP proxy the Neon driver reaches Postgres through. */
    neonWsProxy: string | null;
    /** The JWKS URL of the test OIDC issuer the global setup serves (GitHub Actions' stand-in). */
    oidcJwksUrl: string;
    /** The private key (JWK) that issuer signs OIDC tokens with. */
    oidcPrivateJwk: import("jose").JWK;
    /** web/dist/index.html as built, which the Worker's static assets serve at `/`. */
    webIndexHtml: string;
  }
}

export {};
