/**
 * Called for each ready signal: `planId` may have a newly ready task. `undefined` means any plan may:
 * the subscription has just (re)connected, so signals sent while it was down were missed.
 */
export type ReadyHandler = (planId: string | undefined) => void;

/** A live subscription to the store's ready signals. */
export type ReadyListener = {
  /** Stops listening and releases the connection; safe to call twice. */
  close(): Promise<void>;
};

/** Options of a ready subscription. */
export type ListenOptions = {
  /** Told about a lost listening connection (before each reconnect attempt) for logging. */
  readonly onError?: ((error: unknown) => void) | undefined;
};

/** Subscribes `onReady` to a store's ready signals (see {@link ReadyHandler}). */
export type ListenForReady = (onReady: ReadyHandler, options?: ListenOptions) => Promise<ReadyListener>;
