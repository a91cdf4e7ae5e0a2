import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { kCurrentWorker } from "miniflare";
import { defineConfig } from "vitest/config";

/** Tests that run the real Codex and Gemini CLIs (with Claude Code) against the project's fakes. */
const REAL_CLIS = [
  "agent/src/agents/codex/*.real.test.ts",
  "agent/src/agents/gemini/*.real.test.ts",
  "test/e2e/agents-mix.e2e.test.ts",
];

export default defineConfig({
  resolve: { conditions: ["source"] },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          include: ["{core,worker-api,agent,cli,drizzle,test,web}/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/dist/**", "test/workerd/**", ...REAL_CLIS],
          globalSetup: ["./test/global-setup.ts"],
          // A safety net, not a measure: end-to-end tests take up to 20-35 s here when both cores are
          // busy, and more on a slower machine of the same kind.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: "forks",
          // Most test time is spent waiting on child processes (git, the agent CLI, Postgres), not on the
          // CPU: three forks on two cores take about half the wall time of the default (one per spare
          // core). Projects with different worker counts run as groups, this one first.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The real Codex and Gemini CLIs cost seconds of CPU each start (Gemini CLI's bundle alone ~2 s):
        // run beside the timing-bound tests they starve them, so they run after them, one file at a time.
        extends: true,
        test: {
          name: "real-clis",
          include: REAL_CLIS,
          exclude: ["**/node_modules/**", "**/dist/**"],
          globalSetup: ["./test/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: "forks",
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The Workers build in workerd: the Worker of wrangler.toml with its Durable Objects, reaching the
        // test Postgres through the Neon driver and the proxy the global setup starts.
        extends: true,
        plugins: [
          cloudflareTest(({ inject }) => ({
            main: "./worker-api/src/cloudflare/entry-workers.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // The Worker as a client reaches it: through the static-assets router first (web/dist),
              // which `exports.default.fetch` skips.
              serviceBindings: { ROUTED: kCurrentWorker },
              bindings: {
                WHILLY_DATABASE_URL: inject("workerdDatabaseUrl") ?? "",
                WHILLY_NEON_WS_PROXY: inject("neonWsProxy") ?? "",
                WHILLY_WORKER_BOOTSTRAP_TOKEN: "workerd-test-bootstrap-token",
                // The read API's admin token, as docs/deploy-workers.md has the deploy set it.
                WHILLY_ADMIN_TOKEN: "workerd-test-admin-token-0123",
                // GitHub Actions OIDC for plan creation, against the test issuer the global setup serves.
                WHILLY_OIDC_JWKS_URL: inject("oidcJwksUrl"),
                WHILLY_OIDC_AUDIENCE: "workerd-test-audience",
                WHILLY_OIDC_REPOSITORIES: "acme/widgets",
                // A parked claim answers only when woken (no early recheck): a lost wake-up fails a test.
                WHILLY_CLAIM_TIMEOUT: "30",
                WHILLY_CLAIM_RECHECK: "30",
                // Buffered events wait for the tests to run the alarm: one that fired on its own first (a
                // loaded machine is slow between append and runDurableObjectAlarm) would leave none to run.
                WHILLY_EVENT_FLUSH_MS: "60000",
                // The sweep test makes a worker fall silent; nothing else runs a sweep.
                WHILLY_HEARTBEAT_TIMEOUT: "0.5",
                // Audit-event streams: a poll far longer than any test, so an event that arrives came from
                // the Coordinator's wake-up; a short keep-alive and a small queue, so a client that does not
                // read is dropped within seconds.
                WHILLY_EVENTS_POLL: "600",
                WHILLY_EVENTS_KEEPALIVE: "3",
                WHILLY_EVENTS_MAX_QUEUED: "1024",
              },
            },
          })),
        ],
        test: {
          name: "workerd",
          sequence: { groupOrder: 1 },
          include: ["test/workerd/**/*.test.ts"],
          globalSetup: ["./test/workerd/global-setup.ts"],
          // One database and one proxy serve every file; a test that makes the proxy refuse
          // connections must not overlap another file's queries.
          fileParallelism: false,
          isolate: false,
          // workerd loads every module through Vite; pre-bundling the big dependencies once makes the
          // Worker's first request take about a second instead of ten.
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: [
                  "zod",
                  "hono",
                  "drizzle-orm",
                  "drizzle-orm/pg-core",
                  "drizzle-orm/neon-serverless",
                  "@neondatabase/serverless",
                  "jose",
                ],
              },
            },
          },
          testTimeout: 15_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
