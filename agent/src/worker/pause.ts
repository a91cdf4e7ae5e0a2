import { retryBackoffMs } from "@whilly/core";
import { sleep } from "./retry.js";

/**
 * A stop on claiming after a provider limit, shared by every claim slot of one process: the limit is
 * the account's, so a slot that claimed now would meet it too. See docs/retries.md.
 */
export type PauseGate = {
  /** When claims may resume (ms since the epoch), or `undefined` when not paused. */
  pausedUntil(): number | undefined;
  /**
   * Pauses claims until `until`, the reset time the provider named, or, when it named none (or one
   * already past), for a backoff that doubles with each limit in a row; either way at most the cap.
   * A pause already longer is kept.
   * @returns when claims resume.
   */
  pause(until: Date | undefined): Date;
  /** An attempt ran without meeting a limit: the next limit's backoff starts from the first again. */
  succeeded(): void;
  /** Resolves once the pause is over (at once when not paused), or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void>;
};

/** Options of {@link createPauseGate}. Durations are ms. */
export type PauseGateOptions = {
  /** The first pause after a limit with no reset time (`WHILLY_LIMIT_BACKOFF`). */
  backoffMs: number;
  /** The longest pause, with or without a reset time (`WHILLY_LIMIT_BACKOFF_MAX`). */
  backoffMaxMs: number;
  now?: () => number;
};

/** Makes a {@link PauseGate}; give the same one to every claim slot of a process. */
export function createPauseGate(options: PauseGateOptions): PauseGate {
  const now = options.now ?? Date.now;
  let until: number | undefined;
  let inARow = 0;
  const current = () => (until !== undefined && until > now() ? until : undefined);
  return {
    pausedUntil: current,
    pause(resetAt) {
      inARow++;
      const start = now();
      const named = resetAt?.getTime();
      const wanted =
        named !== undefined && Number.isFinite(named) && named > start
          ? named - start
          : retryBackoffMs(inARow, options.backoffMs, options.backoffMaxMs);
      const next = start + Math.min(wanted, options.backoffMaxMs);
      until = Math.max(current() ?? 0, next);
      return new Date(until);
    },
    succeeded() {
      inARow = 0;
    },
    async wait(signal) {
      for (let left = current(); left !== undefined && !signal.aborted; left = current()) {
        await sleep(left - now(), signal);
      }
    },
  };
}
