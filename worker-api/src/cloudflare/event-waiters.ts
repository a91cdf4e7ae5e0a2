/**
 * The audit-event streams parked in one Coordinator: every commit signal wakes them all (each woken
 * stream reads by cursor from Postgres, so a wake carries no data and a spurious one costs one read).
 *
 * Signals are counted as a generation, `<epoch>:<count>`: a stream passes the generation it last saw,
 * and a wait whose generation is already stale answers at once. So a signal that arrives between a
 * stream's wake-up and its next park (while it reads) is not lost. The epoch is drawn per instance, so
 * a Coordinator evicted and recreated never reuses a generation a stream still holds.
 */
export class EventWaiters {
  readonly #epoch = crypto.randomUUID().slice(0, 8);
  #count = 0;
  readonly #parked = new Map<symbol, () => void>();
  readonly #tickets = new Map<string, symbol>();

  /** The generation now: changes with every {@link notify}. */
  get generation(): string {
    return `${this.#epoch}:${this.#count}`;
  }

  /** How many streams are parked. */
  get size(): number {
    return this.#parked.size;
  }

  /**
   * Resolves with the generation after the next {@link notify}, after `timeoutMs`, or on
   * {@link abandon} of `ticket`; at once when `seen` is given and is not the current generation.
   */
  wait(seen: string | undefined, timeoutMs: number, ticket?: string): Promise<string> {
    if (seen !== undefined && seen !== this.generation) return Promise.resolve(this.generation);
    return new Promise((resolve) => {
      const key = Symbol("stream");
      const done = () => {
        clearTimeout(timer);
        this.#parked.delete(key);
        if (ticket !== undefined) this.#tickets.delete(ticket);
        resolve(this.generation);
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      this.#parked.set(key, done);
      if (ticket !== undefined) this.#tickets.set(ticket, key);
    });
  }

  /** Ends the wait named `ticket` (its stream moved on: its client left, or it parks anew). */
  abandon(ticket: string): void {
    const key = this.#tickets.get(ticket);
    if (key !== undefined) this.#parked.get(key)?.();
  }

  /** Counts a commit and wakes every parked stream. @returns how many were woken. */
  notify(): number {
    this.#count++;
    const woken = [...this.#parked.values()];
    for (const wake of woken) wake();
    return woken.length;
  }
}
