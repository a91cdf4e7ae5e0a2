type Waiter = { readonly settle: () => void };

/**
 * Parked long polls, grouped by plan, oldest first. Runtime-neutral (timers and `AbortSignal` only),
 * so the Node coordinator and a Durable Object can share it.
 *
 * Wake-ups are counted: {@link PlanWaiters.wake} settles the oldest `count` waiters of a plan, so one
 * newly ready task wakes one claimer instead of every parked one (a thundering herd costs each loser a
 * wasted claim transaction). A woken claimer that gets a task wakes the next one, so several ready
 * tasks drain down the queue one claim at a time.
 */
export class PlanWaiters {
  private readonly byPlan = new Map<string, Set<Waiter>>();
  private parked = 0;

  /** How many waits are parked, over all plans. */
  get size(): number {
    return this.parked;
  }

  /** Plans with at least one parked wait. */
  plans(): string[] {
    return [...this.byPlan.keys()];
  }

  /**
   * Parks until woken, `timeoutMs` passes, or `signal` aborts; never rejects. An aborted signal
   * resolves at once without parking.
   */
  wait(planId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let queue = this.byPlan.get(planId);
      if (!queue) {
        queue = new Set();
        this.byPlan.set(planId, queue);
      }
      const onAbort = () => waiter.settle();
      const timer = setTimeout(onAbort, timeoutMs);
      const waiter: Waiter = {
        settle: () => {
          if (!queue.delete(waiter)) return;
          this.parked -= 1;
          if (queue.size === 0 && this.byPlan.get(planId) === queue) this.byPlan.delete(planId);
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      queue.add(waiter);
      this.parked += 1;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Wakes the oldest `count` waiters of `planId`, or of every plan when `planId` is `undefined`.
   * @returns how many were woken.
   */
  wake(planId: string | undefined, count = 1): number {
    if (planId === undefined) {
      let woken = 0;
      for (const plan of this.plans()) woken += this.wake(plan, count);
      return woken;
    }
    const queue = this.byPlan.get(planId);
    if (!queue) return 0;
    const chosen = [...take(queue, count)];
    for (const waiter of chosen) waiter.settle();
    return chosen.length;
  }

  /** Wakes every parked wait (shutdown). */
  wakeAll(): void {
    this.wake(undefined, Number.POSITIVE_INFINITY);
  }
}

function* take<T>(items: Iterable<T>, count: number): Generator<T> {
  if (count <= 0) return;
  let taken = 0;
  for (const item of items) {
    yield item;
    taken += 1;
    if (taken >= count) return;
  }
}
