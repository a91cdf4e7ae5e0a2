import { StoreUnavailable } from "@whilly/core";
import type { ListenOptions, ReadyHandler, ReadyListener, Store } from "@whilly/worker-api";
import { STORE_METHODS } from "@whilly/worker-api";

/**
 * Why a backing store is (re)opened: `first` at the start; `handed-over` when this process owned the
 * store and gave it to a command that must own it (`released` settles once its lock is free);
 * `lost` when the owner serving it stopped (or a call found the store unavailable).
 */
export type OpenReason =
  | { readonly kind: "first" }
  | { readonly kind: "handed-over"; readonly released: Promise<void> }
  | { readonly kind: "lost" };

/**
 * Opens a backing store; it calls `switchAway` when it stops being usable (handed over, connection
 * lost), which makes the switching store open the next one.
 */
export type OpenBacking = (reason: OpenReason, switchAway: (reason: OpenReason) => void) => Promise<Store>;

type Subscription = {
  readonly method: "listenForReady" | "listenForEvents";
  readonly onReady: ReadyHandler;
  readonly options: ListenOptions | undefined;
  inner: ReadyListener | undefined;
  ended: boolean;
};

/**
 * A Store whose backing can change underneath while its user keeps it: the embedded store this
 * process owns, then (handed over) the new owner's socket; or a socket whose owner stopped, then a
 * new owner's socket or the store opened here. Each switch opens the next backing once with
 * `open`, re-makes every live subscription on it (each handler is then told `undefined`: signals
 * may have been missed) and closes the old one. A call failing with `StoreUnavailable` switches
 * (unless a switch already happened) and is retried once on the new backing; an error opening the
 * next backing is what later calls throw.
 * @throws whatever `open` throws for the first backing.
 */
export async function switchingStore(open: OpenBacking): Promise<Store> {
  let generation = 0;
  let closed = false;
  const subscriptions = new Set<Subscription>();
  const switchAwayFrom =
    (from: number) =>
    (reason: OpenReason): void => {
      if (from !== generation || closed) return;
      generation++;
      const old = current;
      current = (async () => {
        await old.then((store) => store.close()).catch(() => {});
        const next = await open(reason, switchAwayFrom(generation));
        await Promise.all([...subscriptions].map((sub) => resubscribe(next, sub)));
        return next;
      })();
      current.catch(() => {});
    };
  let current: Promise<Store> = Promise.resolve(await open({ kind: "first" }, switchAwayFrom(0)));
  const first = await current;

  const call = async (name: string, args: unknown[]): Promise<unknown> => {
    const from = generation;
    const store = (await current) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    try {
      return await store[name]?.(...args);
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || closed) throw error;
      switchAwayFrom(from)({ kind: "lost" });
      const next = (await current) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return next[name]?.(...args);
    }
  };
  const listen =
    (method: Subscription["method"]) =>
    async (onReady: ReadyHandler, options?: ListenOptions): Promise<ReadyListener> => {
      const sub: Subscription = { method, onReady, options, inner: undefined, ended: false };
      sub.inner = (await call(method, [onReady, options])) as ReadyListener;
      subscriptions.add(sub);
      return {
        async close() {
          if (sub.ended) return;
          sub.ended = true;
          subscriptions.delete(sub);
          await sub.inner?.close();
        },
      };
    };

  const store: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(STORE_METHODS)) {
    if (kind === "call") store[name] = (...args: unknown[]) => call(name, args);
    else if (kind === "listen" && first[name as Subscription["method"]]) {
      store[name] = listen(name as Subscription["method"]);
    }
  }
  Object.defineProperty(store, "driver", { enumerable: true, get: () => first.driver });
  store.close = async () => {
    closed = true;
    const backing = await current.catch(() => undefined);
    const all = [...subscriptions];
    subscriptions.clear();
    await Promise.allSettled(all.map((sub) => sub.inner?.close()));
    await backing?.close();
  };
  return store as unknown as Store;
}

/** Makes `sub` again on `next`, dropping the old listener; a failure is reported to its `onError`. */
async function resubscribe(next: Store, sub: Subscription): Promise<void> {
  const old = sub.inner;
  sub.inner = undefined;
  await old?.close().catch(() => {});
  try {
    const listen = next[sub.method];
    if (listen === undefined) return;
    const inner = await listen(sub.onReady, sub.options);
    if (sub.ended) await inner.close();
    else sub.inner = inner;
    sub.onReady(undefined);
  } catch (error) {
    sub.options?.onError?.(error);
  }
}
