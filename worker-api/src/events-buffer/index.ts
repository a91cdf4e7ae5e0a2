export {
  type BatcherOptions,
  EVENT_BATCH_DEFAULTS,
  EventBatcher,
  flushRetryDelayMs,
  type KeyedEvent,
} from "./batcher.js";
export {
  createEventBuffer,
  type EventBuffer,
  type EventBufferOptions,
  type EventBufferStats,
} from "./event-buffer.js";
