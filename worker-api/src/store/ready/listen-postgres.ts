import pg from "pg";
import type { ListenForReady, ListenOptions, ReadyHandler, ReadyListener } from "./listener.js";
import { READY_CHANNEL } from "./signal-ready.js";

/** First and longest pause before reconnecting a lost listening connection (ms). */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

/**
 * Ready signals from a Postgres server: one dedicated connection (never a pooled one, since a
 * connection pooler in transaction mode silently drops LISTEN) runs `LISTEN whilly_task_ready`. When the
 * connection fails it is reopened with capped exponential backoff; each (re)connect reports
 * `onReady(undefined)`, because signals sent while it was down are lost.
 * @param url the same `postgres://` URL the store's pool uses.
 * @param channel the channel to listen on: the ready signals by default, or the audit log's
 *   (`EVENTS_CHANNEL`), whose payloads are plan ids too.
 */
export function postgresReadyListener(url: string, channel: string = READY_CHANNEL): ListenForReady {
  return async (onReady, options) => {
    const listener = new PostgresListener(url, channel, onReady, options ?? {});
    await listener.connect();
    return listener;
  };
}

class PostgresListener implements ReadyListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onReady: ReadyHandler,
    private readonly options: ListenOptions,
  ) {}

  /** Opens the connection; the first attempt's failure is thrown, later ones are retried. */
  async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("the listening connection ended")));
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.onReady(message.payload || undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    // Only now does a failure of this client count as a lost connection; before, connect() reports it.
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.onReady(undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {});
    this.options.onError?.(error);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        this.options.onError?.(error);
        this.scheduleReconnect();
      });
    }, delay);
    this.retryTimer.unref?.();
  }
}
