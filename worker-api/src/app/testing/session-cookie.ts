import type { App } from "../app.js";

/** A `POST /api/v1/session` reply as tests read it: status, JSON body, the raw `Set-Cookie` and `name=value`. */
export type SessionReply = {
  status: number;
  body: { role?: string; expires_at?: string; error_code?: string; detail?: string; token?: string };
  setCookie: string | null;
  cookie: string | undefined;
};

/**
 * Opens a browser session with `token` as the bearer (none when `undefined`), or, with `path`
 * `/api/v1/session/redeem` and `body`, redeems a sign-in code. `origin` decides http or https.
 */
export async function openSession(
  app: Pick<App, "request">,
  token: string | undefined,
  options: { origin?: string; path?: string; body?: unknown } = {},
): Promise<SessionReply> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const url = `${options.origin ?? "http://localhost"}${options.path ?? "/api/v1/session"}`;
  const init: RequestInit = { method: "POST", headers };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await app.request(url, init);
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie");
  return {
    status: response.status,
    body: text ? JSON.parse(text) : {},
    setCookie,
    cookie: setCookie?.split(";")[0],
  };
}

/**
 * A request with the session cookie `cookie` (`whilly_session=...`) and no `Authorization` header,
 * as a browser sends it. A stream's body is cancelled, so the reply is its status and content type.
 */
export async function withCookie(
  app: Pick<App, "request">,
  path: string,
  cookie: string | undefined,
  method = "GET",
): Promise<{ status: number; type: string; body: ReturnType<typeof JSON.parse> }> {
  const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
  const response = await app.request(path, { method, headers });
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, type, body: undefined };
  }
  const text = await response.text();
  return { status: response.status, type, body: text ? JSON.parse(text) : undefined };
}
