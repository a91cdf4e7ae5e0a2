/**
 * A histogram kept in process memory, for a duration only this process sees (how long its parked
 * claims waited). Fixed bounds; observations are counted, not stored, so its size never grows.
 */
export class DurationHistogram {
  /** Upper bounds of the buckets, seconds, ascending. */
  readonly bounds: readonly number[];
  readonly #perBucket: number[];
  #count = 0;
  #sum = 0;

  /** @throws {Error} for bounds that are empty, not finite or not ascending: a bug, never input. */
  constructor(bounds: readonly number[]) {
    if (
      bounds.length === 0 ||
      bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= (bounds[i - 1] ?? b)))
    ) {
      throw new Error(`histogram bounds must be finite and ascending: ${bounds.join(", ")}`);
    }
    this.bounds = [...bounds];
    this.#perBucket = bounds.map(() => 0);
  }

  /** Counts one observation, seconds; a negative or non-finite one (a clock step) is ignored. */
  observe(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    const bucket = this.bounds.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) this.#perBucket[bucket] = (this.#perBucket[bucket] ?? 0) + 1;
    this.#count += 1;
    this.#sum += seconds;
  }

  /** The counts so far: `buckets[i]` observations at most `bounds[i]` (cumulative), and the total count and sum (seconds). */
  snapshot(): { bounds: readonly number[]; buckets: number[]; count: number; sum: number } {
    let running = 0;
    const buckets = this.#perBucket.map((n) => (running += n));
    return { bounds: this.bounds, buckets, count: this.#count, sum: this.#sum };
  }
}

/**
 * Bounds of the claim long poll's histogram, seconds: an answer at once, a wake-up within a second,
 * up to the longest wait (30 s, then 204).
 */
export const LONG_POLL_BOUNDS_SECONDS: readonly number[] = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30,
];
