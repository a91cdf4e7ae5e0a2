import {
  type ClaimedTask,
  type ClaimRequest,
  type ClaimRouting,
  PlanNotFound,
  type PlanRecord,
} from "@whilly/core";
import type { Context } from "hono";
import { onSharedAbort } from "../shared-abort.js";
import type { PresentedBearer, Store } from "../store/store.js";
import { asPresentedWorker } from "./caller.js";
import { clientGoneSignal } from "./client-gone.js";
import type { AppDeps } from "./deps.js";

/** A claim the caller will be told about: the task with its dependencies' work, and its plan. */
export type Claimed = { readonly task: ClaimedTask; readonly plan: PlanRecord | undefined };

/**
 * The long poll behind `POST /tasks/claim`. Tries to claim; when nothing is ready it parks on the
 * coordinator (holding no database connection) until a task of the plan may have become ready, then
 * tries again, for at most `settings.claimWaitMs` in all. Without a coordinator, or with a wait bound
 * of 0, it tries once.
 *
 * - A plan that does not exist yet is treated as one with nothing ready: a worker may start before
 *   its plan is imported, and the import wakes it.
 * - A client that hung up is never handed a task: no claim is made once its request is aborted, and a
 *   task claimed while it was leaving goes straight back to `PENDING` (`RELEASE`, reason `client_gone`,
 *   the attempt given back), checked after the host has read the I/O that arrived during the claim.
 *   A wake-up that reached a claim whose client left is handed on to the next parked claim.
 * - A claim that was woken and got a task wakes the next parked claim of the plan, since more tasks
 *   may be ready than claims were woken; the chain ends at the first claim that finds nothing, unless
 *   what it found was a ready task it cannot run (docs/agents.md#routing): then it wakes the next
 *   parked claim, whose worker may, once per request.
 * - When the host is stopping (`deps.stopping`), parked claims answer at once and new ones do not park.
 * - How long a claim that answered (200 or 204) took, parked waits included, goes to `deps.claimWaits`
 *   when the host keeps one (`GET /metrics`).
 * @returns the claimed task and its plan, or `undefined` for 204.
 * @throws {Unauthorized} @throws {Forbidden} as {@link asPresentedWorker} does.
 */
export async function claimWithinBound(
  deps: AppDeps,
  c: Context,
  body: ClaimRequest,
): Promise<Claimed | undefined> {
  const { settings, stopping } = deps;
  const gone = clientGoneSignal(c);
  const deadline = Date.now() + settings.claimWaitMs;
  // One signal for "stop waiting": the client left or the host is stopping. Removed at the end, because
  // AbortSignal.any on the server-long `stopping` signal keeps a reference per request; and `stopping`
  // is shared by every parked claim, so it gets one listener in all (see onSharedAbort).
  const interrupt = new AbortController();
  const stop = () => interrupt.abort();
  gone.addEventListener("abort", stop, { once: true });
  const unsubscribe = stopping ? onSharedAbort(stopping, stop) : undefined;
  const began = Date.now();
  try {
    const claimed = await pollUntilClaimed(deps, c, body, deadline, gone, interrupt.signal);
    deps.claimWaits?.observe((Date.now() - began) / 1000);
    return claimed;
  } finally {
    gone.removeEventListener("abort", stop);
    unsubscribe?.();
  }
}

/**
 * The claim loop of {@link claimWithinBound}: try, park until `interrupt` or a wake-up, try again.
 * @param gone aborts when the client hung up ({@link clientGoneSignal}).
 */
async function pollUntilClaimed(
  deps: AppDeps,
  c: Context,
  body: ClaimRequest,
  deadline: number,
  gone: AbortSignal,
  interrupt: AbortSignal,
): Promise<Claimed | undefined> {
  const { settings, coordinator, stopping } = deps;
  let woken = false;
  // A claim hands a wake-up it could not use on to another parked claim at most once per request, so
  // claims that cannot run a task nobody can run do not pass its wake-up around for ever.
  let handedOn = false;
  for (;;) {
    if (gone.aborted) {
      // A wake-up this claim can no longer use goes to the next parked claim, or a ready task could
      // wait for a recheck while claims are parked.
      if (woken) coordinator?.notifyWork(body.plan_id);
      return undefined;
    }
    // Hand the wake-up on as soon as the claim commits, before the rest of the answer is read.
    const handOn = woken && coordinator ? () => coordinator.notifyWork(body.plan_id) : undefined;
    const outcome = await asPresentedWorker(
      deps,
      c,
      body.worker_id,
      (store, bearer) =>
        claimOnce(store, body, settings.leaseMs, gone, handOn, bearer, woken && !handedOn && !!coordinator),
      { register: true },
    );
    if (outcome === "client_gone") {
      deps.log?.("info", "claim.client_gone", { plan_id: body.plan_id, worker_id: body.worker_id });
      return undefined;
    }
    if (outcome === "for_others") {
      // Woken for a task this worker cannot run: the parked claim of a worker that can may be next.
      handedOn = true;
      coordinator?.notifyWork(body.plan_id);
    } else if (outcome) return outcome;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0 || !coordinator || stopping?.aborted) return undefined;
    const waitMs = coordinator.rechecks ? remainingMs : Math.min(remainingMs, settings.claimRecheckMs);
    await coordinator.waitForWork(body.plan_id, waitMs, interrupt);
    // Woken (or timed out) rather than interrupted: the wait ended before the client left.
    woken = !interrupt.aborted;
  }
}

/**
 * One claim attempt in one store scope; hands the task back when the client left meanwhile.
 * @param onClaimed called once a task is claimed for a client still there.
 * @param bearer the request's bearer, for the claim to check (see {@link asPresentedWorker}).
 * @param askOthers when nothing is claimed, asks whether a ready task waits for another worker
 *   (`"for_others"`): a claim woken for it hands the wake-up on.
 */
async function claimOnce(
  store: Store,
  body: ClaimRequest,
  leaseMs: number,
  gone: AbortSignal,
  onClaimed: (() => void) | undefined,
  bearer: PresentedBearer | undefined,
  askOthers: boolean,
): Promise<Claimed | "client_gone" | "for_others" | undefined> {
  let claimed: Claimed | undefined;
  const routing = claimRoutingOf(body);
  try {
    claimed = await store.claimWithPlan({
      planId: body.plan_id,
      workerId: body.worker_id,
      leaseMs,
      start: body.start,
      bearer,
      ...routing,
    });
  } catch (error) {
    if (error instanceof PlanNotFound) return undefined;
    throw error;
  }
  if (!claimed) {
    return askOthers && (await store.hasReadyForOthers(body.plan_id, routing)) ? "for_others" : undefined;
  }
  const { task } = claimed;
  // A hang-up that reached the host while the claim ran is only seen once pending I/O is read.
  await pendingIo();
  if (gone.aborted) {
    await store.releaseUnseenClaim({
      planId: task.planId,
      taskId: task.id,
      workerId: body.worker_id,
      version: task.version,
      reason: "client_gone",
    });
    return "client_gone";
  }
  onClaimed?.();
  return claimed;
}

/**
 * Resolves once the host has polled for I/O after the claim's result was read, so a client's hang-up
 * that arrived meanwhile has fired its signal: on Node two turns of `setImmediate` (the first runs in
 * the same turn as the poll that read the result, the second after the next poll); elsewhere a zero
 * timer, which runs after the next poll.
 */
function pendingIo(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (!immediate) return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => immediate(() => immediate(resolve)));
}

/** A claim body's capabilities and choice, as the store takes them. */
function claimRoutingOf(body: ClaimRequest): ClaimRouting {
  return {
    capabilities: body.capabilities,
    choice: body.choice && {
      agent: body.choice.agent,
      model: body.choice.model,
      forceAgent: body.choice.force_agent,
      forceModel: body.choice.force_model,
    },
  };
}
