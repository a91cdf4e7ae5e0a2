/**
 * A signal that aborts once `stillGood` answers false: what a long response (an event stream) was
 * opened on has gone since (its credential was revoked, rotated or expired; its plan was deleted),
 * so the response ends as its next request would be refused. `stillGood` runs every `everyMs` (ms)
 * until `until` aborts; a throw (the store briefly unreachable) is no verdict, the next round tries again.
 */
export function lapseSignal(
  stillGood: () => Promise<boolean>,
  everyMs: number,
  until: AbortSignal,
): AbortSignal {
  const lapsed = new AbortController();
  const loop = async () => {
    while (!until.aborted) {
      await pause(everyMs, until);
      if (until.aborted) return;
      const good = await stillGood().catch(() => true);
      if (!good) return lapsed.abort();
    }
  };
  void loop();
  return lapsed.signal;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
