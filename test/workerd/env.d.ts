import type { DurableBindings } from "../../worker-api/src/cloudflare/durable.js";

// The Worker under test, as `cloudflare:workers` exposes it to the tests: its bindings (`env`) and
// its main module's exports (`exports.default`, the Durable Object classes).
declare global {
  namespace Cloudflare {
    interface Env extends DurableBindings {
      readonly WHILLY_DATABASE_URL: string;
      readonly WHILLY_NEON_WS_PROXY: string;
      readonly WHILLY_WORKER_BOOTSTRAP_TOKEN: string;
      readonly WHILLY_ADMIN_TOKEN: string;
      readonly WHILLY_OIDC_AUDIENCE: string;
      /** The Worker behind its static-assets router, as a client reaches it (vitest.config.ts). */
      readonly ROUTED: Fetcher;
    }
    interface GlobalProps {
      mainModule: typeof import("../../worker-api/src/cloudflare/entry-workers.js");
      durableNamespaces: "Coordinator" | "EventBuffer";
    }
  }
}
