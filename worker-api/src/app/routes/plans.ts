import { DEFAULT_HEARTBEAT_TIMEOUT_MS, InvalidInput, PlanNotFound, type WaitingFor } from "@whilly/core";
import { Hono } from "hono";
import type { AppDeps } from "../deps.js";
import { toTaskPayload } from "../payload.js";
import { toEventPayload, toPlanDetail, toPlanSummaryPayload } from "../read-payload.js";
import { authenticateReadRequest, readerCredential } from "../reader.js";
import { eventStreamHandler } from "./event-stream.js";
import { authorizeIssueLookup, createPlanHandler } from "./plan-create.js";

/** Default and largest page of `GET /api/v1/plans/{id}/events`. */
export const EVENTS_PAGE = { default: 1000, max: 10_000 } as const;

/**
 * The read API for people and dashboards, under `/api/v1/plans`. It serves task text and agents'
 * output, so the app lets only readers in (the admin token or a read-only token, or anyone when the
 * operator made reads public; see docs/protocol.md); a worker's bearer reads only the plan summary
 * (`GET /api/v1/plans/{id}`), which it checks its plan with; a GitHub Actions OIDC caller only looks
 * up the plan of an issue of its repository (`GET /api/v1/plans?github_issue_ref=owner/repo/N`).
 * `POST /api/v1/plans` stores a plan file (see `createPlanHandler`). Plan ids are percent-encoded in
 * paths (`/api/v1/plans/my%20plan`); a missing plan is a 404 envelope (`plan_not_found`).
 */
export function planRoutes(deps: AppDeps) {
  const reader = readerCredential(deps, { session: true });
  return new Hono()
    .post("/", createPlanHandler(deps))
    .get("/", async (c) => {
      const raw = c.req.query("github_issue_ref");
      let ref: string | undefined;
      if (raw === undefined) {
        await deps.withStore((store) => authenticateReadRequest(deps, c, store, true));
      } else {
        ref = await authorizeIssueLookup(deps, c, raw);
      }
      const plans = await deps.withStore(async (store) => {
        if (ref !== undefined && !(await store.findPlanByIssueRef(ref))) return [];
        const all = await store.listPlans();
        return ref === undefined ? all : all.filter((plan) => plan.githubIssueRef === ref);
      });
      return c.json({ plans: plans.map(toPlanSummaryPayload) });
    })
    .get("/:planId", readerCredential(deps, { workers: "admit", session: true }), async (c) => {
      const planId = c.req.param("planId");
      const plans = await deps.withStore((store) => store.listPlans());
      const plan = plans.find((p) => p.id === planId);
      if (!plan) throw new PlanNotFound(planId);
      return c.json(toPlanDetail(plan));
    })
    .get("/:planId/tasks", reader, async (c) => {
      const planId = c.req.param("planId");
      const { plan, tasks, waiting } = await deps.withStore(async (store) => ({
        tasks: await store.listTasks(planId),
        plan: await store.getPlan(planId),
        waiting: await store.listWaiting(planId, {
          onlineWithinMs: deps.settings.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
        }),
      }));
      const waitingFor = new Map(waiting.map((w) => [w.taskId, w.waitingFor]));
      return c.json({
        plan_id: planId,
        tasks: tasks.map((task) => ({
          ...toTaskPayload(task, plan),
          waiting_for: waitingForPayload(waitingFor.get(task.id)),
        })),
      });
    })
    .get("/:planId/events/stream", reader, eventStreamHandler(deps, "plan"))
    .get("/:planId/events", reader, async (c) => {
      const planId = c.req.param("planId");
      const after = queryInteger(c.req.query("after"), "after", 0, Number.MAX_SAFE_INTEGER, 0);
      const limit = queryInteger(c.req.query("limit"), "limit", 1, EVENTS_PAGE.max, EVENTS_PAGE.default);
      const events = await deps.withStore(async (store) => {
        if (!(await store.getPlan(planId))) throw new PlanNotFound(planId);
        return store.listEvents(planId, { afterId: after, limit });
      });
      return c.json({
        plan_id: planId,
        events: events.map((e) => toEventPayload(e, deps.secrets)),
        next_after: events.at(-1)?.id ?? after,
      });
    });
}

/**
 * A whole-number query parameter in `[min, max]`, or `fallback` when absent.
 * @throws {InvalidInput} (422) for anything else.
 */
function queryInteger(
  raw: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (raw === undefined || raw === "") return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidInput(name, `${name} must be a whole number from ${min} to ${max}; got '${raw}'`);
  }
  return value;
}

/** A task's `waiting_for` in the read API: `null` when it does not wait for a capability. */
export function waitingForPayload(
  waiting: WaitingFor | undefined,
): { agent?: string; tags: string[] } | null {
  if (waiting === undefined) return null;
  return { ...(waiting.agent === undefined ? {} : { agent: waiting.agent }), tags: [...waiting.tags] };
}
