/**
 * Wakes and waits for ready work. `waitForWork` resolves when a task of the plan may have become
 * ready, when `timeoutMs` passes, or when `signal` aborts; `notifyWork` is called after anything that
 * may make a task ready (import, a completion, a release).
 */
export type WorkCoordinator = {
  waitForWork(planId: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<void>;
  notifyWork(planId: string): void;
  /**
   * True when the coordinator hears the store's own ready signals (sent in the transaction that made a
   * task ready), so routes skip `notifyWork` after store writes: a second wake for the same task would
   * only cost a parked claim a wasted claim transaction.
   */
  readonly listensToStore?: boolean;
  /**
   * True when the coordinator itself wakes a parked claim of each plan every `claimRecheckMs`; the claim
   * route then parks for its whole bound at once instead of every parked request re-checking the database.
   */
  readonly rechecks?: boolean;
};
