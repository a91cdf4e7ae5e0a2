import { randomUrlSafe } from "./secrets.js";

/**
 * A new worker id: `w-` and 11 url-safe characters (64 random bits, as whilly 4.x's `token_urlsafe(8)`).
 * Ids are drawn, not counted, so replicas need no coordination; a rare collision is retried by the
 * register route.
 */
export function newWorkerId(): string {
  return `w-${randomUrlSafe(8)}`;
}
