import {
  COST_USD_RANGE,
  Forbidden,
  InvalidInput,
  parseUsd,
  TaskNotFound,
  type TaskStore,
  unstorableText,
} from "@whilly/core";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { Caller } from "../ports/index.js";
import { BearerNotStored, type PresentedBearer, type Store } from "../store/store.js";
import { readBody } from "./body.js";
import type { AppDeps } from "./deps.js";

/**
 * Middleware of every worker route, ahead of its handler: refuses a credential that cannot be valid
 * before the body is read ({@link AppDeps.auth}'s `screenWorker`), so an unauthenticated caller gets a
 * 401 whatever it sends and never a 422 describing the body. In process, without a database round trip.
 * @throws {Unauthorized}
 */
export function workerCredential(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    await deps.auth.screenWorker(c.req.header("authorization"));
    await next();
  };
}

/**
 * {@link readBody} for worker routes: when the body fails validation, the credential is first checked
 * in the store too (revoked or unknown bearers pass the in-process screen), so such a caller gets 401,
 * never a 422 describing the body. A valid body costs nothing extra: its route checks the bearer in
 * its own statement or lookup.
 * @throws {Unauthorized} @throws {InvalidInput}
 */
export function readWorkerBody<S extends z.ZodType>(
  deps: AppDeps,
  c: Context,
  schema: S,
): Promise<z.infer<S>> {
  return checkedInput(deps, c, () => readBody(c, schema));
}

/**
 * Runs `read` (reading or converting a worker's input); when it throws {@link InvalidInput}, the
 * credential is checked in the store first, as {@link readWorkerBody} does.
 * @throws {Unauthorized} @throws {InvalidInput}
 */
export async function checkedInput<T>(deps: AppDeps, c: Context, read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidInput) {
      const authorization = c.req.header("authorization");
      await deps.withStore((store) => deps.auth.authenticateWorker(authorization, store));
    }
    throw error;
  }
}

/**
 * Checks that the caller may act as `workerId`.
 * @throws {Forbidden} when a per-worker credential names another worker.
 */
export function assertActsAs(caller: Caller, workerId: string): void {
  if (caller.workerId !== undefined && caller.workerId !== workerId) {
    throw new Forbidden(`token owner '${caller.workerId}' cannot act as worker '${workerId}'`);
  }
}

/**
 * The plan a task route addresses: the body's `plan_id`, or else the plan of the worker's own claim on
 * that task id (protocol-v1 clients send no plan id; task ids are unique per plan only).
 * @throws {TaskNotFound} when no plan is given and the worker holds no task with this id.
 * @throws {InvalidInput} (`plan_id`) when no plan is given and the worker holds this task id in
 *   several plans: picking one could finish the wrong task, so the client must say which.
 */
export async function resolvePlanId(
  store: TaskStore,
  planId: string | undefined,
  workerId: string,
  taskId: string,
): Promise<string> {
  // An id Postgres cannot store names no stored task: say so, instead of a driver error about bytes.
  if (
    unstorableText(taskId) !== undefined ||
    (planId !== undefined && unstorableText(planId) !== undefined)
  ) {
    throw new TaskNotFound(taskId);
  }
  if (planId !== undefined) return planId;
  const found = await store.findClaimedPlans(workerId, taskId);
  const [only] = found;
  if (only === undefined) throw new TaskNotFound(taskId);
  if (found.length > 1) {
    const plans = found.map((id) => `'${id}'`).join(", ");
    throw new InvalidInput(
      "plan_id",
      `worker '${workerId}' holds task '${taskId}' in ${found.length} plans (${plans}); send plan_id to say which`,
    );
  }
  return only;
}

/**
 * Converts protocol v1's `cost_usd` (JSON number or decimal string, null or absent for none) to micro-USD.
 * The request schema already refused anything else; this is the conversion's own guard.
 * @throws {InvalidInput} for an amount outside {@link COST_USD_RANGE} or not a decimal.
 */
export function costFromBody(cost: number | string | null | undefined): number {
  if (cost === null || cost === undefined) return 0;
  const micro = parseUsd(cost);
  if (micro === undefined) {
    throw new InvalidInput(
      "cost_usd",
      `cost_usd must be an amount of USD from ${COST_USD_RANGE}; got ${JSON.stringify(cost)}`,
    );
  }
  return micro;
}

/**
 * Runs `use` in one store scope after authenticating the request and checking that the caller may act
 * as `workerId`, so auth and the operation share one connection (one per request on Workers).
 * With `options.register`, a worker id the caller may register on first use is registered first.
 * @throws {Unauthorized} @throws {Forbidden}
 */
export function asWorker<T>(
  deps: AppDeps,
  c: Context,
  workerId: string,
  use: (store: Store) => Promise<T>,
  options?: FirstUse,
): Promise<T> {
  return deps.withStore(async (store) => {
    await authorize(deps, store, c.req.header("authorization"), workerId, options);
    return use(store);
  });
}

/**
 * The full check of a worker request: the credential (stored-hash lookup included), that it may act
 * as `workerId`, and with `options.register` the first-use registration.
 * @throws {Unauthorized} @throws {Forbidden}
 */
async function authorize(
  deps: AppDeps,
  store: Store,
  authorization: string | undefined,
  workerId: string,
  options?: FirstUse,
): Promise<void> {
  const caller = await deps.auth.authenticateWorker(authorization, store);
  assertActsAs(caller, workerId);
  if (options?.register) await registerOnFirstUse(deps, store, caller, workerId);
}

/** `register: true` for the routes that need the worker to exist (the claim and the heartbeat). */
export type FirstUse = { readonly register?: boolean };

/**
 * The hostname of a worker registered on first use: the shared token's protocol sends none, and
 * guessing one from the connection would name a proxy as often as the worker.
 */
export const UNKNOWN_HOSTNAME = "unknown";

/**
 * Registers `workerId` when the caller's workers register on first use (the legacy shared token,
 * {@link Caller.registersWorkers}) and nobody registered it yet. A known worker only gets its liveness
 * refreshed: its hostname and token stay. Per-worker bearers never get here: their worker exists.
 */
async function registerOnFirstUse(deps: AppDeps, store: Store, caller: Caller, workerId: string) {
  if (!caller.registersWorkers) return;
  // Liveness alone is the cheapest "does it exist" that also keeps it online; a heartbeat would also
  // judge the worker's unnamed tasks, counting this request twice.
  if (await store.touchWorker(workerId)) return;
  await store.upsertWorker({ workerId, hostname: UNKNOWN_HOSTNAME });
  deps.log?.("info", "worker.registered", {
    worker_id: workerId,
    hostname: UNKNOWN_HOSTNAME,
    credential: "shared_token",
  });
}

/**
 * {@link asWorker} for operations that check the bearer in their own statement (the claim and the
 * finishes): when the request presents a per-worker bearer whose signature holds and which names
 * `workerId`, `use` gets its hash and the store checks it is still stored as part of the operation,
 * saving the request its separate lookup (a round trip and a transaction per request). Every other
 * case, and every error `use` throws, takes the full check first, so a caller whose bearer is not
 * stored gets the same 401 as with {@link asWorker}, and before any other error.
 * @throws {Unauthorized} @throws {Forbidden}
 */
export function asPresentedWorker<T>(
  deps: AppDeps,
  c: Context,
  workerId: string,
  use: (store: Store, bearer: PresentedBearer | undefined) => Promise<T>,
  options?: FirstUse,
): Promise<T> {
  return deps.withStore(async (store) => {
    const authorization = c.req.header("authorization");
    const presented = await deps.auth.presentedWorker?.(authorization);
    if (presented === undefined || presented.workerId !== workerId) {
      await authorize(deps, store, authorization, workerId, options);
      return use(store, undefined);
    }
    try {
      return await use(store, { tokenHash: presented.tokenHash });
    } catch (error) {
      await authorize(deps, store, authorization, workerId);
      // Stored by now after all: the operation changed nothing, so it can run as after a lookup.
      if (error instanceof BearerNotStored) return use(store, undefined);
      throw error;
    }
  });
}
