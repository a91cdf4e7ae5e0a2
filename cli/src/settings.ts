import { ConfigurationError } from "@whilly/core";
import { z } from "zod";

const seconds = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return fallback;
      const value = Number(raw);
      if (!Number.isFinite(value) || value <= 0) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be a positive number of seconds; got '${raw}'`,
        });
        return z.NEVER;
      }
      return value;
    });

const databaseUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return undefined;
    // The seed accepted SQLAlchemy-style '+asyncpg' schemes; keep those URLs working.
    const url = raw.trim().replace(/^(postgres(?:ql)?)\+asyncpg:/, "$1:");
    if (!/^postgres(ql)?:\/\//.test(url)) {
      ctx.addIssue({
        code: "custom",
        message: "WHILLY_DATABASE_URL must start with postgres:// or postgresql://",
      });
      return z.NEVER;
    }
    return url;
  });

const schema = z.object({
  WHILLY_DATABASE_URL: databaseUrl,
  WHILLY_WORKER_ID: z.string().trim().min(1).max(256).optional(),
  WHILLY_VISIBILITY_TIMEOUT: seconds("WHILLY_VISIBILITY_TIMEOUT", 900),
  WHILLY_HEARTBEAT_INTERVAL: seconds("WHILLY_HEARTBEAT_INTERVAL", 30),
  NO_COLOR: z.string().optional(),
});

/** The CLI's settings, read once from the environment at the entry point. Durations are ms. */
export type CliSettings = {
  /** A Postgres server to use instead of the embedded store; `undefined` means embedded PGlite in `.whilly/`. */
  readonly databaseUrl: string | undefined;
  /** Worker id for `whilly run`; default `local-<hostname>-<pid>`. */
  readonly workerId: string | undefined;
  /** Lease length of a claim (ms), renewed by heartbeats. From `WHILLY_VISIBILITY_TIMEOUT` (s), default 900 s. */
  readonly leaseMs: number;
  /** Heartbeat period (ms). From `WHILLY_HEARTBEAT_INTERVAL` (s), default 30 s. */
  readonly heartbeatIntervalMs: number;
};

/**
 * Validates the environment.
 * @throws {ConfigurationError} naming the variable and the fix.
 */
export function parseCliSettings(env: Readonly<Record<string, string | undefined>>): CliSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((i) =>
      i.code === "custom" ? i.message : `${i.path.join(".")}: ${i.message}`,
    );
    throw new ConfigurationError(messages.join("; "));
  }
  const s = parsed.data;
  const leaseMs = s.WHILLY_VISIBILITY_TIMEOUT * 1000;
  const heartbeatIntervalMs = s.WHILLY_HEARTBEAT_INTERVAL * 1000;
  if (heartbeatIntervalMs >= leaseMs) {
    throw new ConfigurationError(
      `WHILLY_HEARTBEAT_INTERVAL (${s.WHILLY_HEARTBEAT_INTERVAL} s) must be shorter than WHILLY_VISIBILITY_TIMEOUT (${s.WHILLY_VISIBILITY_TIMEOUT} s), or leases expire between heartbeats`,
    );
  }
  return { databaseUrl: s.WHILLY_DATABASE_URL, workerId: s.WHILLY_WORKER_ID, leaseMs, heartbeatIntervalMs };
}
