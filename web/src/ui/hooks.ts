import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { AuditEvent } from "../api/types.js";
import { openStream } from "../live/stream.js";

/** A fetched value: `data` once loaded (kept while reloading), the last `error`, and `reload`. */
export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  reload(): void;
  set(update: (data: T | undefined) => T | undefined): void;
}

/** Fetches with `load` whenever `key` changes; `reload()` fetches again keeping the shown data. */
export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  useEffect(() => {
    if (keyRef.current !== key) setData(undefined);
    keyRef.current = key;
    let stale = false;
    loadRef.current().then(
      (value) => {
        if (stale) return;
        setData(value);
        setError(undefined);
      },
      (err) => !stale && setError(err),
    );
    return () => {
      stale = true;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, reload, set: setData };
}

/** `fn` called at most once per `ms`, after the last call of a burst (and at least every `ms`). */
export function useThrottled(fn: () => void, ms: number): () => void {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      fnRef.current();
    }, ms);
  }, [ms]);
}

/** Follows an audit-event stream while mounted (see `openStream`). */
export function useStream(url: string, onEvent: (e: AuditEvent) => void, onResync: () => void): void {
  const handlers = useRef({ onEvent, onResync });
  handlers.current = { onEvent, onResync };
  useEffect(
    () =>
      openStream(url, {
        onEvent: (e) => handlers.current.onEvent(e),
        onResync: () => handlers.current.onResync(),
      }),
    [url],
  );
}

/** The current time, ticking every `ms` (never for 0), for ages and elapsed times. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (ms <= 0) return;
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}
