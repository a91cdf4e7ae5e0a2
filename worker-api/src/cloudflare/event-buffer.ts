import { DurableObject } from "cloudflare:workers";
import { errorSummary } from "@whilly/core";
import { flushRetryDelayMs } from "../events-buffer/batcher.js";
import type { NewEvent } from "../store/events/insert-events.js";
import { openNeonStore } from "../store/open/neon.js";
import { type BufferedRow, FLUSH_BATCH, nextFlushAt, toNewEvents } from "./event-batch.js";
import { type CoordinatorBinding, signalEvents } from "./event-signals.js";
import { log } from "./log.js";
import { settingsFor } from "./settings.js";

/** Batches flushed per alarm before it yields and re-arms, so one alarm never runs unbounded. */
const BATCHES_PER_ALARM = 20;

/** What a flush did: rows written to Postgres (duplicates skipped) and rows still buffered. */
export type FlushResult = { readonly written: number; readonly pending: number };

/**
 * Buffers non-transition events (agent output summaries, findings, metrics) and writes them to
 * Postgres in batches of up to {@link FLUSH_BATCH} rows, `WHILLY_EVENT_FLUSH_MS` (100 ms) after the
 * first append or at once when a full batch waits. Appended events sit in the object's own SQLite
 * storage until Postgres has them, so they survive eviction and restarts; a failed flush leaves them
 * there and re-arms the alarm with a growing delay (50 ms doubling to 5 s). Rows are deleted only after their batch committed,
 * and every row carries a stable idempotency key, so a flush repeated after a crash duplicates nothing.
 */
export class EventBuffer extends DurableObject {
  #failures = 0;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    // AUTOINCREMENT: a sequence number is never reused after its row is deleted, so idempotency keys
    // of new events never collide with those of flushed ones.
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS buffered (seq INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL)",
    );
  }

  /**
   * Stores `events` in order and schedules their flush.
   * @returns how many events are buffered now, these included.
   */
  async append(events: readonly NewEvent[]): Promise<number> {
    for (const event of events) {
      this.ctx.storage.sql.exec("INSERT INTO buffered (event) VALUES (?)", JSON.stringify(event));
    }
    const backlog = this.#backlog();
    const settings = this.#settings();
    const due = nextFlushAt(Date.now(), backlog, settings.eventFlushMs, await this.ctx.storage.getAlarm());
    if (due !== undefined) await this.ctx.storage.setAlarm(due);
    return backlog;
  }

  /** The flush alarm; a failure re-arms it rather than throwing, so retries never run out. */
  override async alarm(): Promise<void> {
    try {
      const { pending } = await this.flush();
      this.#failures = 0;
      if (pending > 0) await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      this.#failures++;
      const delayMs = flushRetryDelayMs(this.#failures);
      log("warn", "event_buffer.flush_failed", {
        failures: this.#failures,
        retryInMs: delayMs,
        error: errorSummary(error),
      });
      await this.ctx.storage.setAlarm(Date.now() + delayMs);
    }
  }

  /**
   * Writes buffered events to Postgres, oldest first, one transaction per batch, deleting each batch
   * once committed. Stops after a bounded number of batches.
   * @throws {StoreUnavailable} and other store errors; the failed batch stays buffered.
   */
  async flush(): Promise<FlushResult> {
    const store = openNeonStore(this.#settings().database);
    let written = 0;
    const committed = new Set<string>();
    try {
      for (let batch = 0; batch < BATCHES_PER_ALARM; batch++) {
        const rows = this.ctx.storage.sql
          .exec<BufferedRow>("SELECT seq, event FROM buffered ORDER BY seq LIMIT ?", FLUSH_BATCH)
          .toArray();
        const last = rows.at(-1);
        if (last === undefined) break;
        const events = toNewEvents(this.ctx.id.toString(), rows);
        const count = await store.appendEvents(events);
        written += count;
        if (count > 0) for (const event of events) committed.add(event.planId);
        // Rows appended while Postgres was writing have higher sequence numbers and stay.
        this.ctx.storage.sql.exec("DELETE FROM buffered WHERE seq <= ?", last.seq);
      }
    } finally {
      await store.close();
      // Wakes the streams of what did commit, also when a later batch failed.
      await signalEvents(this.env as unknown as CoordinatorBinding, committed).catch((error: unknown) =>
        log("warn", "coordinator.events_signal_failed", {
          plans: [...committed],
          error: errorSummary(error),
        }),
      );
    }
    return { written, pending: this.#backlog() };
  }

  /** How many events wait for a flush. */
  async pendingCount(): Promise<number> {
    return this.#backlog();
  }

  #backlog(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM buffered").one().n;
  }

  #settings() {
    const settings = settingsFor(this.env);
    if (settings instanceof Error) throw settings;
    return settings;
  }
}
