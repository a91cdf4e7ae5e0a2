import type { StoreUnavailable } from "@whilly/core";
import { STORE_METHODS } from "../local-socket/methods.js";
import type { Store } from "../store.js";

/** A store whose calls can be stopped, see {@link gatedStore}. */
export type GatedStore = {
  readonly store: Store;
  /**
   * Refuses new calls with `StoreUnavailable` and waits for those under way: before the store is
   * handed over to another process, so nothing of this one reaches a closing database.
   */
  shut(): Promise<void>;
};

/**
 * `store` with a gate in front of every call and subscription: `shut()` closes it. Listeners already
 * made keep working until the database closes. Used by an owner that may hand its store over.
 */
export function gatedStore(store: Store, refusal: () => StoreUnavailable): GatedStore {
  const underWay = new Set<Promise<unknown>>();
  let shut = false;
  const gated: Record<string, unknown> = { driver: store.driver, close: () => store.close() };
  const inner = store as unknown as Record<string, unknown>;
  for (const [name, kind] of Object.entries(STORE_METHODS)) {
    const method = inner[name];
    if (kind === "local" || typeof method !== "function") continue;
    gated[name] = (...args: unknown[]) => {
      if (shut) return Promise.reject(refusal());
      const call = Promise.resolve(method.apply(store, args));
      underWay.add(call);
      const done = () => underWay.delete(call);
      call.then(done, done);
      return call;
    };
  }
  return {
    store: gated as unknown as Store,
    async shut() {
      shut = true;
      await Promise.allSettled([...underWay]);
    },
  };
}
