import { readDuration, type SettingsProblem, type StringEnv } from "@whilly/core";
import type { EventStreamSettings } from "./event-stream.js";

/** The audit-event stream's settings: each stream's limits plus the feed's poll. Durations are ms. */
export type EventStreamConfig = EventStreamSettings & {
  /** The longest a follower waits without a signal before it reads again (`WHILLY_EVENTS_POLL`). */
  readonly pollMs: number;
};

/** A replay sends at most this many events, then `replay_truncated`. */
export const REPLAY_LIMIT = 1000;

/** The defaults: 15 s keep-alive, 1 s poll, 256 KiB queued per client, 1,000 events replayed. */
export const DEFAULT_EVENT_STREAM: EventStreamConfig = {
  keepAliveMs: 15_000,
  pollMs: 1000,
  maxQueuedBytes: 256 * 1024,
  replayLimit: REPLAY_LIMIT,
};

const MIN_QUEUED_BYTES = 1024;
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Reads the event stream's variables, appending a problem per bad one to `problems`:
 * `WHILLY_EVENTS_KEEPALIVE` (s, default 15), `WHILLY_EVENTS_POLL` (s, default 1) and
 * `WHILLY_EVENTS_MAX_QUEUED` (bytes, 1024 to 64 MiB, default 262144).
 */
export function readEventStreamConfig(env: StringEnv, problems: SettingsProblem[]): EventStreamConfig {
  const duration = (name: string, fallbackMs: number) =>
    readDuration(env, name, { fallbackMs, unitMs: 1000, maxMs: 3_600_000 }, problems);
  return {
    keepAliveMs: duration("WHILLY_EVENTS_KEEPALIVE", DEFAULT_EVENT_STREAM.keepAliveMs),
    pollMs: duration("WHILLY_EVENTS_POLL", DEFAULT_EVENT_STREAM.pollMs),
    maxQueuedBytes: readBytes(env, "WHILLY_EVENTS_MAX_QUEUED", problems),
    replayLimit: REPLAY_LIMIT,
  };
}

function readBytes(env: StringEnv, name: string, problems: SettingsProblem[]): number {
  const raw = env[name]?.trim();
  if (!raw) return DEFAULT_EVENT_STREAM.maxQueuedBytes;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= MIN_QUEUED_BYTES && value <= MAX_QUEUED_BYTES) return value;
  problems.push({
    message: `${name} must be a whole number of bytes from ${MIN_QUEUED_BYTES} to ${MAX_QUEUED_BYTES}; got '${raw}'`,
    hint: `e.g. ${name}=${DEFAULT_EVENT_STREAM.maxQueuedBytes} (the default), or unset it`,
  });
  return DEFAULT_EVENT_STREAM.maxQueuedBytes;
}
