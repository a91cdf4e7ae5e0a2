import { errorSummary, WhillyError } from "@whilly/core";
import { Hono } from "hono";
import type { AppDeps } from "../deps.js";

/** How long the database may take to answer before the control plane reports itself unavailable. */
export const HEALTH_TIMEOUT_MS = 5_000;

/**
 * `GET /health`: 200 `{"status":"ok"}` when the database answers `SELECT 1`, else 503
 * `{"status":"unavailable","detail":...}`. The detail names only the kind of failure: driver messages
 * can carry host names and user names, so they go to the log, never to the caller.
 */
export function healthRoutes(deps: AppDeps) {
  return new Hono().get("/", async (c) => {
    try {
      await withTimeout(
        deps.withStore((store) => store.ping()),
        HEALTH_TIMEOUT_MS,
      );
      return c.json({ status: "ok" as const });
    } catch (error) {
      deps.log?.("warn", "health.database_unavailable", { error: errorSummary(error) });
      const kind =
        error instanceof WhillyError ? error.code : error instanceof HealthTimeout ? "timeout" : "error";
      return c.json(
        {
          status: "unavailable" as const,
          detail: `database check failed (${kind}); see the control plane's log`,
        },
        503,
      );
    }
  });
}

class HealthTimeout extends Error {}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthTimeout(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
