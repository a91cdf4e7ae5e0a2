/** The one listener a long-lived signal carries, and the callbacks it calls. */
type Group = { readonly members: Set<() => void>; readonly fire: () => void };

const groups = new WeakMap<AbortSignal, Group>();

/**
 * Calls `onAbort` once when `signal` aborts (at once if it already has), for signals that live far
 * longer than their subscribers, such as the host's `stopping` signal that every parked claim watches.
 * Node warns (`MaxListenersExceededWarning`) when one signal carries more than ten listeners, which a
 * busy server's parked claims pass at once, and raising the limit would also hide a real leak. So each
 * signal gets a single listener, added for its first subscriber and removed after its last, that calls
 * every current subscriber.
 * @returns a function that unsubscribes; calling it again, or after the abort, does nothing.
 */
export function onSharedAbort(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  let group = groups.get(signal);
  if (!group) {
    const members = new Set<() => void>();
    const fire = () => {
      groups.delete(signal);
      for (const callback of [...members]) callback();
      members.clear();
    };
    signal.addEventListener("abort", fire, { once: true });
    group = { members, fire };
    groups.set(signal, group);
  }
  const { members, fire } = group;
  members.add(onAbort);
  return () => {
    if (!members.delete(onAbort) || members.size > 0) return;
    signal.removeEventListener("abort", fire);
    if (groups.get(signal)?.members === members) groups.delete(signal);
  };
}
