import { DEFAULT_HEARTBEAT_TIMEOUT_MS } from "@whilly/core";
import { Hono } from "hono";
import { metricFamilies, metricsQuery } from "../../metrics/families.js";
import { TEXT_FORMAT_CONTENT_TYPE, writeTextFormat } from "../../metrics/text-format.js";
import type { AppDeps } from "../deps.js";

/**
 * `GET /metrics`: the Prometheus text format (docs/metrics.md), for readers only (the app puts the
 * reader credential in front; a worker's bearer gets 403). Every value but the long poll's histogram
 * is read from the database per scrape, so replicas and Workers isolates all answer the same.
 */
export function metricsRoutes(deps: AppDeps) {
  const query = metricsQuery(deps.settings.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS);
  return new Hono().get("/", async (c) => {
    const metrics = await deps.withStore((store) => store.readMetrics(query));
    const body = writeTextFormat(metricFamilies(metrics, deps.claimWaits));
    return c.body(body, 200, { "content-type": TEXT_FORMAT_CONTENT_TYPE, "cache-control": "no-store" });
  });
}
