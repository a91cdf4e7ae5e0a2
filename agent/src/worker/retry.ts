import { TransportError, WhillyError } from "@whilly/core";

/** Backoff bounds for retrying retryable calls (ms). */
export type Backoff = { readonly initialMs: number; readonly maxMs: number };

/** Default backoff: 250 ms doubling up to 30 s, so a control-plane restart costs seconds, not a lost result. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, maxMs: 30_000 };

/**
 * Calls `fn` until it succeeds, retrying errors marked `retryable` with capped exponential backoff and
 * full jitter. Non-retryable errors are thrown at once.
 * @param options.signal stops retrying; the last error is thrown.
 * @param options.budgetMs how long (ms, from the first failure) retrying may go on; unbounded when
 *   undefined. A wait that would end past the budget is cut to end with it; a failure once the budget
 *   is spent is the last.
 * @param options.onRetry told of each retry and its delay.
 * @throws {TransportError} not retryable, wrapping the last error, when the budget runs out.
 */
export async function withRetry<T>(
  fn: () => Promise<T>,
  options: {
    backoff?: Backoff;
    signal?: AbortSignal | undefined;
    budgetMs?: number | undefined;
    onRetry?: (error: Error, delayMs: number) => void;
    random?: () => number;
    now?: () => number;
  } = {},
): Promise<T> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  let firstFailureAt: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof WhillyError) || !error.retryable || options.signal?.aborted) throw error;
      firstFailureAt ??= now();
      const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(attempt, 20));
      const delayMs = Math.round(ceiling / 2 + (random() * ceiling) / 2);
      const elapsedMs = now() - firstFailureAt;
      const leftMs = options.budgetMs === undefined ? Number.POSITIVE_INFINITY : options.budgetMs - elapsedMs;
      if (leftMs <= 0) throw exhausted(error, attempt + 1, elapsedMs, options.budgetMs as number);
      // The last wait is cut to the time left, so the last try comes when the budget ends, not early.
      const waitMs = Math.min(delayMs, leftMs);
      options.onRetry?.(error, waitMs);
      await sleep(waitMs, options.signal);
    }
  }
}

function exhausted(last: WhillyError, attempts: number, elapsedMs: number, budgetMs: number): TransportError {
  const status = last instanceof TransportError ? last.status : undefined;
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  return new TransportError(
    `${last.message} (gave up after ${attempts} attempts in ${seconds(elapsedMs)}; retry budget ${seconds(budgetMs)})`,
    status,
    { cause: last, retryable: false },
  );
}

/** Resolves after `ms`, or early when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
