import { type ClaimedTask, type ClaimRequest, PlanNotFound, type PlanRecord } from "@whilly/core";
import type { Context } from "hono";
import type { PresentedBearer, Store } from "../store/store.js";
import { asPresentedWorker } from "./caller.js";
import { clientGoneSignal } from "./client-gone.js";
import type { AppDeps } from "./deps.js";
import { onSharedAbort } from "./shared-abort.js";

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
 *   may be ready than claims were woken; the chain ends at the first claim that finds nothing.
 * - When the host is stopping (`deps.stopping`), parked claims answer at once and new ones do not park.
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
  try {
    return await pollUntilClaimed(deps, c, body, deadline, gone, interrupt.signal);
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
      (store, bearer) => claimOnce(store, body, settings.leaseMs, gone, handOn, bearer),
      { register: true },
    );
    if (outcome === "client_gone") {
      deps.log?.("info", "claim.client_gone", { plan_id: body.plan_id, worker_id: body.worker_id });
      return undefined;
    }
    if (outcome) return outcome;
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
 */
async function claimOnce(
  store: Store,
  body: ClaimRequest,
  leaseMs: number,
  gone: AbortSignal,
  onClaimed: (() => void) | undefined,
  bearer: PresentedBearer | undefined,
): Promise<Claimed | "client_gone" | undefined> {
  let claimed: Claimed | undefined;
  try {
    claimed = await store.claimWithPlan({
      planId: body.plan_id,
      workerId: body.worker_id,
      leaseMs,
      start: body.start,
      bearer,
      capabilities: body.capabilities,
      choice: body.choice && {
        agent: body.choice.agent,
        model: body.choice.model,
        forceAgent: body.choice.force_agent,
        forceModel: body.choice.force_model,
      },
    });
  } catch (error) {
    if (error instanceof PlanNotFound) return undefined;
    throw error;
  }
  if (!claimed) return undefined;
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
