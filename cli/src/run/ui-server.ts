import {
  createSignInCodes,
  createTokenAuth,
  parseServerSettings,
  randomUrlSafe,
  type Store,
  startNodeServer,
} from "@whilly/worker-api";

/** Options of {@link startRunUi}. */
export type RunUiOptions = {
  /** The run's store, shared: the dashboard shows what the run writes as it writes it. */
  readonly store: Store;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** The run's plan: the link opens its page. */
  readonly planId: string;
  /** How long the printed sign-in link stays good (ms). */
  readonly signInTtlMs: number;
  /** The command's environment: the control plane's durations, `WHILLY_WEB_DIR` and its secrets. */
  readonly env: Readonly<Record<string, string | undefined>>;
};

/** The dashboard of a running `whilly run --ui`. */
export type RunUi = {
  /** e.g. `http://127.0.0.1:53124`. */
  readonly url: string;
  /** The one-time sign-in link to print: `<url>/#signin=<code>&plan=<plan id>`. */
  readonly link: string;
  /** Stops serving; nothing is left listening once it resolves. Does not close the store. */
  close(): Promise<void>;
};

/**
 * Serves the web dashboard and a control plane of its own over the run's store, on 127.0.0.1 only, for
 * as long as the run goes (docs/web-dashboard.md). Its auth is real token auth, never the run's
 * in-process trust: a random admin token made for this run and never shown, which the one-time code of
 * the link stands for, and a random bootstrap token nobody learns, so no worker can join. It does not
 * sweep leases: the run keeps its own.
 * @throws when the port cannot be bound (e.g. `EADDRINUSE`), or for a bad control-plane setting in the
 *   environment ({@link parseServerSettings}).
 */
export async function startRunUi(options: RunUiOptions): Promise<RunUi> {
  const adminToken = randomUrlSafe(32);
  const bootstrapToken = randomUrlSafe(32);
  const settings = parseServerSettings({
    ...options.env,
    WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrapToken,
    WHILLY_ADMIN_TOKEN: adminToken,
    // The server's other credentials open nothing here: auth is built from the two tokens above.
    WHILLY_WORKER_TOKEN: undefined,
    WHILLY_TOKEN_SECRET: undefined,
    WHILLY_PUBLIC_READ: undefined,
  });
  const codes = createSignInCodes({ ttlMs: options.signInTtlMs });
  const server = await startNodeServer({
    store: options.store,
    settings,
    // Only the two tokens and the session lifetime: no OIDC, shared token or public reads here.
    auth: createTokenAuth({ bootstrapToken, adminToken, sessionTtlMs: settings.auth.sessionTtlMs }),
    port: options.port,
    host: "127.0.0.1",
    sweeps: false,
    signIn: { codes, adminToken },
  });
  return {
    url: server.url,
    link: `${server.url}/#signin=${codes.issue()}&plan=${encodeURIComponent(options.planId)}`,
    close: () => server.close(),
  };
}
