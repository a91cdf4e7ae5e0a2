import { parse } from "./errors.js";
import { session } from "./session.js";

interface Options {
  method?: string;
  body?: unknown;
  /** Send the stored token as the bearer (operator actions); reads use the session cookie. */
  bearer?: boolean;
  /** Do not try to sign in again after a 401 (the session routes themselves). */
  noRetry?: boolean;
}

/** Percent-encodes each path segment, so plan and task ids with spaces or slashes stay one segment. */
export function path(...segments: string[]): string {
  return segments.map(encodeURIComponent).join("/");
}

/**
 * Calls the API under `/api/v1`. A 401 on a read re-opens the session once with the stored token
 * (after a server restart or the cookie's expiry) and retries.
 * @throws {ApiError} for any status other than 2xx.
 */
export async function api<T>(route: string, opts: Options = {}): Promise<T> {
  const res = await send(route, opts);
  // An action's 401 is about its bearer, which signing in again with the same token cannot mend.
  if (res.status === 401 && !opts.bearer && !opts.noRetry && session.token() && (await session.renew())) {
    return parse<T>(await send(route, opts));
  }
  return parse<T>(res);
}

function send(route: string, opts: Options): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = session.token();
  if (opts.bearer && token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`/api/v1/${route}`, {
    method: opts.method ?? "GET",
    headers,
    credentials: "same-origin",
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
}
