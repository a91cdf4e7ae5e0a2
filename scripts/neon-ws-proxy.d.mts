/** A running WebSocket-to-TCP proxy for the Neon driver; `address` is `host:port`. */
export type NeonWsProxy = { readonly address: string; close(): Promise<void> };

/**
 * Starts the proxy. `allow` lists the Postgres `host:port` addresses it may connect to; `control: true`
 * (tests) adds `POST /refuse` and `POST /accept`; between them new connections are turned down.
 */
export function startNeonWsProxy(options: {
  host?: string;
  port?: number;
  allow: string[];
  control?: boolean;
}): Promise<NeonWsProxy>;
