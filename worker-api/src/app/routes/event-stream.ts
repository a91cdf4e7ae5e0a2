import { type EventPayload, InvalidInput, PlanNotFound, Unauthorized } from "@whilly/core";
import { type Context, Hono } from "hono";
import {
  DEFAULT_EVENT_STREAM,
  openEventStream,
  pollingEventFeed,
  type StreamFeed,
} from "../../stream/index.js";
import { clientGoneSignal } from "../client-gone.js";
import type { AppDeps } from "../deps.js";
import { toEventPayload } from "../read-payload.js";
import { authenticateReadRequest, readerCredential } from "../reader.js";
import { lapseSignal } from "../stream-lapse.js";

/** An event as a stream frame's `data:`: the read API's event plus the worker it names, if any. */
export type StreamEventPayload = EventPayload & { readonly worker_id: string | null };

/**
 * `GET /api/v1/events/stream`: every plan's audit events as server-sent events (see
 * {@link eventStreamHandler}); mounted at `/api/v1/events`.
 */
export function eventRoutes(deps: AppDeps) {
  return new Hono().get(
    "/stream",
    readerCredential(deps, { session: true }),
    eventStreamHandler(deps, "all"),
  );
}

/**
 * The handler of the audit-event streams, `GET /api/v1/plans/{plan_id}/events/stream` (`scope` "plan")
 * and `GET /api/v1/events/stream` (docs/protocol.md, "The audit-event stream"). Readers only: mount it
 * behind `readerCredential`; the stream ends once that credential is refused or the plan is deleted
 * (checked again at each keep-alive). A `Last-Event-ID` header, or else `?after=`, replays what followed that
 * event; without either the stream starts at the log's settled end.
 * @throws {PlanNotFound} (404) for an unknown plan; {@link InvalidInput} (422) for a bad
 *   `Last-Event-ID` or `after`.
 */
export function eventStreamHandler(deps: AppDeps, scope: "plan" | "all") {
  const config = deps.settings.events ?? DEFAULT_EVENT_STREAM;
  const shared = deps.eventFeed ?? pollingEventFeed(deps.withStore, config.pollMs);
  return async (c: Context) => {
    const planId = scope === "plan" ? c.req.param("planId") : undefined;
    const afterId = resumeFrom(c);
    if (planId !== undefined) {
      await deps.withStore(async (store) => {
        if (!(await store.getPlan(planId))) throw new PlanNotFound(planId);
      });
    }
    const feed: StreamFeed = typeof shared === "function" ? shared() : shared;
    // Checked again at each keep-alive: a revoked token, a rotated admin token, an expired session or
    // a deleted plan ends the stream, whose reconnection is then refused (401, 404). Not where the host
    // bounds each stream (`feed.ending`, Workers): there every check would spend a subrequest of the
    // stream's budget, and the stream's own end soon makes the client reconnect, which checks anew.
    const ended = new AbortController();
    const stillGood = () =>
      deps.withStore(async (store) => {
        try {
          await authenticateReadRequest(deps, c, store, true);
        } catch (error) {
          if (error instanceof Unauthorized) return false;
          throw error;
        }
        return planId === undefined || (await store.getPlan(planId)) !== undefined;
      });
    const lapsed = feed.ending ? undefined : lapseSignal(stillGood, config.keepAliveMs, ended.signal);
    const body = openEventStream({
      feed,
      planId,
      afterId,
      settings: config,
      format: (event) => {
        const payload: StreamEventPayload = {
          ...toEventPayload(event, deps.secrets),
          worker_id: typeof event.payload.worker_id === "string" ? event.payload.worker_id : null,
        };
        return JSON.stringify(payload);
      },
      stopping: [
        clientGoneSignal(c),
        ...(lapsed ? [lapsed] : []),
        ...(deps.stopping ? [deps.stopping] : []),
        ...(feed.ending ? [feed.ending] : []),
      ],
      onEnd: (end, error) => {
        ended.abort();
        if (end === "dropped") deps.log?.("warn", "events.client_dropped", { plan_id: planId ?? null });
        if (end === "failed") {
          deps.log?.("warn", "events.stream_failed", { plan_id: planId ?? null, error: String(error) });
        }
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // Tells nginx-style proxies not to hold frames back.
        "x-accel-buffering": "no",
      },
    });
  };
}

/**
 * The event id a client resumes after: `Last-Event-ID` (what a reconnecting EventSource sends, so it
 * wins over the URL's `after`), else `?after=`; `undefined` for neither.
 * @throws {InvalidInput} for a value that is not a whole number.
 */
function resumeFrom(c: Context): number | undefined {
  const header = c.req.header("last-event-id")?.trim();
  if (header) return eventId(header, "Last-Event-ID");
  const query = c.req.query("after");
  return query === undefined || query === "" ? undefined : eventId(query, "after");
}

function eventId(raw: string, name: string): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new InvalidInput(name, `${name} must be an event id (a whole number of 0 or more); got '${raw}'`);
  }
  return value;
}
