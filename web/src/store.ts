import { useEffect, useState } from "preact/hooks";

/** A value that components follow: `get`, `set` and `subscribe`, for state shared across pages. */
export interface Store<T> {
  get(): T;
  set(value: T): void;
  subscribe(fn: () => void): () => void;
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      if (Object.is(next, value)) return;
      value = next;
      for (const fn of listeners) fn();
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

/** The store's value, re-rendering when it changes. */
export function useStore<T>(store: Pick<Store<T>, "get" | "subscribe">): T {
  const [, bump] = useState(0);
  useEffect(() => store.subscribe(() => bump((n) => n + 1)), [store]);
  return store.get();
}
