import { Unauthorized } from "@whilly/core";

/**
 * A signal that aborts once `check` throws {@link Unauthorized}: the credential a long response (an
 * event stream) was opened with has been revoked, rotated or has expired since, so the response ends
 * as the credential's next request would be refused. `check` runs every `everyMs` (ms) until `until`
 * aborts; any other error (the store briefly unreachable) is no verdict, and the next round tries again.
 */
export function credentialLapse(
  check: () => Promise<void>,
  everyMs: number,
  until: AbortSignal,
): AbortSignal {
  const lapsed = new AbortController();
  const loop = async () => {
    while (!until.aborted) {
      await pause(everyMs, until);
      if (until.aborted) return;
      try {
        await check();
      } catch (error) {
        if (error instanceof Unauthorized) return lapsed.abort(error);
      }
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
