/** A refused request: the status and the server's error envelope (`detail`, and `hint` when sent). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly hint?: string,
  ) {
    super(detail);
  }
}

/** The body as JSON, or the error envelope as an {@link ApiError}. */
export async function parse<T>(res: Response): Promise<T> {
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    // A proxy's HTML error page: fall through with its status.
  }
  if (!res.ok) {
    const detail = typeof body.detail === "string" ? body.detail : `${res.status} ${res.statusText}`;
    const hint = typeof body.hint === "string" ? body.hint : undefined;
    throw new ApiError(res.status, String(body.error_code ?? "http_error"), detail, hint);
  }
  return body as T;
}

/** A message for any thrown value. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.hint ? `${err.detail} (${err.hint})` : err.detail;
  return err instanceof Error ? err.message : String(err);
}
