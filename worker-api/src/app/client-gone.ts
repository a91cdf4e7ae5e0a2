import type { Context } from "hono";

/**
 * The key under which a host may put, in the request's environment (`c.env`), a function returning a
 * signal that aborts when the request's client hangs up. For hosts whose request signal aborts late:
 * on Node, `@hono/node-server` aborts it only when the response closes, which a busy server sees well
 * after the client's FIN arrived (see `node/hang-up.ts`).
 */
export const CLIENT_GONE_KEY = "whillyClientGone";

/** The host hook stored under {@link CLIENT_GONE_KEY}. */
export type ClientGone = () => AbortSignal;

/**
 * A signal that aborts when the request's client hung up: the request's own signal (on Workers it
 * fires on disconnect with `enable_request_signal`), combined with the host's hook when it has one.
 */
export function clientGoneSignal(c: Context): AbortSignal {
  const own = c.req.raw.signal;
  const env = c.env as Record<string, unknown> | undefined;
  const hook = env?.[CLIENT_GONE_KEY];
  return typeof hook === "function" ? AbortSignal.any([own, (hook as ClientGone)()]) : own;
}
