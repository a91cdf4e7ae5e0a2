export { type EventStreamSettings, openEventStream, type StreamEnd } from "./event-stream.js";
export { pollingEventFeed } from "./polling-feed.js";
export {
  DEFAULT_EVENT_STREAM,
  type EventStreamConfig,
  REPLAY_LIMIT,
  readEventStreamConfig,
} from "./settings.js";
export type { EventCursor, EventFeed, SettledEvent, StreamFeed, StreamFeedFactory } from "./source.js";
export { type StoreEventFeed, startStoreEventFeed } from "./store-feed.js";
