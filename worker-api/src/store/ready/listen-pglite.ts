import type { PGlite } from "@electric-sql/pglite";
import type { ListenForReady } from "./listener.js";
import { READY_CHANNEL } from "./signal-ready.js";

/**
 * Ready signals from an embedded PGlite database: PGlite delivers NOTIFY to listeners of the same
 * instance, at commit, so the one process that owns the data directory hears its own writes. Like
 * every subscription it starts with `onReady(undefined)`, for writes made before it existed.
 * @param channel the ready signals by default, or the audit log's (`EVENTS_CHANNEL`).
 */
export function pgliteReadyListener(client: PGlite, channel: string = READY_CHANNEL): ListenForReady {
  return async (onReady) => {
    const unlisten = await client.listen(channel, (payload) => onReady(payload || undefined));
    onReady(undefined);
    let closed = false;
    return {
      async close() {
        if (closed) return;
        closed = true;
        if (!client.closed) await unlisten().catch(() => {});
      },
    };
  };
}
