/** Small helpers for reading a control plane's replies and fetch's failures. */

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `: <detail>` from a protocol v1 error envelope, or nothing. */
export function envelopeDetail(text: string): string {
  const body = safeJson(text) as { detail?: unknown } | undefined;
  return typeof body?.detail === "string" ? `: ${body.detail}` : "";
}

/** Why a fetch failed: its message, with the socket error's code (`ECONNREFUSED`) that undici puts on `cause`. */
export function describeFetchError(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${cause.message} (${code})` : cause.message;
}
