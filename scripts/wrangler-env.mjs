// The environment whilly runs wrangler in for local work: no telemetry, no update check, no fetch of
// Cloudflare's request metadata, wrangler's own files kept in `configHome` instead of ~/.config, and
// workspace packages bundled from their TypeScript sources (the `source` export condition).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The wrangler binary installed with the workspace. */
export const wranglerBin = join(root, "node_modules", ".bin", "wrangler");

/**
 * `process.env` plus the variables that keep wrangler offline and local.
 * @param {string} configHome where wrangler may write its logs and metrics file.
 * @returns {NodeJS.ProcessEnv}
 */
export function offlineWranglerEnv(configHome) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    XDG_CONFIG_HOME: configHome,
    WRANGLER_BUILD_CONDITIONS: "source,workerd,worker,browser",
  };
}
