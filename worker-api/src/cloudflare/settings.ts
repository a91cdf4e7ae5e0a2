import { ConfigurationError, type SettingsProblem } from "@whilly/core";
import {
  type ControlPlaneSettings,
  MAX_CLAIM_WAIT_MS,
  readControlPlaneSettings,
  throwProblems,
} from "../control-plane-settings.js";
import type { NeonConnection } from "../store/open/neon.js";

export { MAX_CLAIM_WAIT_MS };

/** The Worker's settings, parsed once per isolate from its vars and secrets. Durations are ms. */
export type WorkersSettings = ControlPlaneSettings & {
  readonly database: NeonConnection;
  /** Subrequests one audit-event stream may make before it ends for its client to reconnect. */
  readonly eventSubrequests: number;
};

/**
 * Default of `WHILLY_EVENTS_SUBREQUESTS`: the Workers Paid budget of the smallest kind (1,000 per
 * request) less headroom for the request's own calls. On Workers Free (50 per request) set 40.
 */
export const DEFAULT_EVENT_SUBREQUESTS = 900;

/**
 * Validates the Worker's environment (`wrangler.toml` vars plus secrets): the variables of
 * {@link readControlPlaneSettings} (`WHILLY_SWEEP_INTERVAL` aside: Workers sweep by Cron Trigger), and
 *
 * - `WHILLY_DATABASE_URL` (secret, required): `postgres://` or `postgresql://`; a Neon connection string.
 * - `WHILLY_NEON_WS_PROXY` (optional, `host:port`): a local WebSocket-to-TCP proxy in front of plain
 *   Postgres; never set it in production.
 * - `WHILLY_EVENTS_SUBREQUESTS` (optional, 10 to 100000, default {@link DEFAULT_EVENT_SUBREQUESTS}):
 *   Coordinator calls and database connections one audit-event stream makes before it ends (the client
 *   reconnects with `Last-Event-ID`), to stay within the plan's subrequests per request.
 *
 * Only strings count: wrangler passes vars as strings, and a binding of another type under one of these
 * names is a mistake.
 * @throws {ConfigurationError} naming every bad variable.
 */
export function parseWorkersSettings(env: object): WorkersSettings {
  const strings: Record<string, string> = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  const problems: SettingsProblem[] = [];
  const url = (strings.WHILLY_DATABASE_URL?.trim() ?? "").replace(/^(postgres(?:ql)?)\+asyncpg:/, "$1:");
  const urlHint = "give the Neon connection string (postgres://user:password@host/db) as a secret";
  if (url === "") problems.push({ message: "WHILLY_DATABASE_URL is not set", hint: urlHint });
  else if (!/^postgres(ql)?:\/\/./.test(url)) {
    problems.push({
      message: "WHILLY_DATABASE_URL must start with postgres:// or postgresql://",
      hint: urlHint,
    });
  }
  const wsProxy = strings.WHILLY_NEON_WS_PROXY?.trim() || undefined;
  if (wsProxy !== undefined && !/^[\w.-]+:\d+$/.test(wsProxy)) {
    problems.push({
      message: "WHILLY_NEON_WS_PROXY must be host:port",
      hint: "e.g. WHILLY_NEON_WS_PROXY=127.0.0.1:8787 (local tests only), or unset it",
    });
  }
  const eventSubrequests = readSubrequests(strings.WHILLY_EVENTS_SUBREQUESTS, problems);
  const shared = readControlPlaneSettings(strings, problems);
  throwProblems(
    problems,
    "bad Worker environment: ",
    "set vars in wrangler.toml and secrets with `wrangler secret put NAME` (see docs/deploy-workers.md)",
  );
  return { ...shared, database: { url, wsProxy }, eventSubrequests };
}

function readSubrequests(raw: string | undefined, problems: SettingsProblem[]): number {
  const text = raw?.trim();
  if (!text) return DEFAULT_EVENT_SUBREQUESTS;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (value >= 10 && value <= 100_000) return value;
  problems.push({
    message: `WHILLY_EVENTS_SUBREQUESTS must be a whole number from 10 to 100000; got '${text}'`,
    hint: "e.g. WHILLY_EVENTS_SUBREQUESTS=40 on Workers Free (50 subrequests per request), or unset it",
  });
  return DEFAULT_EVENT_SUBREQUESTS;
}

/**
 * {@link parseWorkersSettings} once per `env` object (workerd hands the same one to every request of an
 * isolate), remembering a failure too so every request reports it without parsing again.
 */
export function settingsFor(env: object): WorkersSettings | ConfigurationError {
  let parsed = cache.get(env);
  if (parsed === undefined) {
    try {
      parsed = parseWorkersSettings(env);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      parsed = error;
    }
    cache.set(env, parsed);
  }
  return parsed;
}

const cache = new WeakMap<object, WorkersSettings | ConfigurationError>();
