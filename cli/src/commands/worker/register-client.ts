import { type RegisterResponse, registerResponseSchema, TransportError, Unauthorized } from "@whilly/core";

/** How long registration may take before the command gives up. */
export const REGISTER_TIMEOUT_MS = 30_000;

/**
 * Registers a worker: `POST {controlUrl}/workers/register` with the bootstrap token, body `{hostname}`.
 * A path on `controlUrl` is kept (a control plane behind `https://host/whilly/` works).
 * @returns the new worker's id and its bearer, shown this once.
 * @throws {Unauthorized} when the control plane refuses the bootstrap token (401).
 * @throws {TransportError} when it cannot be reached, answers another error, or answers garbage.
 */
export async function requestRegistration(input: {
  controlUrl: URL;
  bootstrapToken: string;
  hostname: string;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch;
}): Promise<RegisterResponse> {
  const base = new URL(input.controlUrl);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const url = new URL("workers/register", base);
  const timeout = AbortSignal.timeout(REGISTER_TIMEOUT_MS);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await (input.fetch ?? fetch)(url, {
      method: "POST",
      headers: { authorization: `Bearer ${input.bootstrapToken}`, "content-type": "application/json" },
      body: JSON.stringify({ hostname: input.hostname }),
      signal,
    });
  } catch (error) {
    const why = error instanceof Error ? (causeOf(error) ?? error.message) : String(error);
    throw new TransportError(`cannot reach the control plane at ${base.origin}: ${why}`, undefined, {
      cause: error,
      hint: `check the URL, and that whilly server runs there and is reachable from this machine (curl ${new URL("health", base)})`,
    });
  }
  const text = await response.text();
  if (response.status === 401) {
    throw new Unauthorized(`the control plane at ${base.origin} refused the bootstrap token (401)`, {
      credential: "bootstrap",
      hint: "pass the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN with --bootstrap-token or that variable",
    });
  }
  if (response.status !== 201) {
    throw new TransportError(
      `registration failed: HTTP ${response.status}${detailOf(text)}`,
      response.status,
      {
        retryable: response.status >= 500,
        hint: `check that ${base.href} is a whilly control plane (whilly server); its log says why it failed`,
      },
    );
  }
  const parsed = registerResponseSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new TransportError(`the control plane at ${base.origin} answered an unexpected body`, 201, {
      retryable: false,
      hint: `check that ${base.href} is a whilly control plane (whilly server) of this version`,
    });
  }
  return parsed.data;
}

/** `: <detail>` from an error envelope, or nothing. */
function detailOf(text: string): string {
  const body = safeJson(text) as { detail?: unknown } | undefined;
  return typeof body?.detail === "string" ? `: ${body.detail}` : "";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** fetch reports "fetch failed" with the socket error on `cause`; that is the useful part. */
function causeOf(error: Error): string | undefined {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.code === "string") return cause.code;
  return typeof cause?.message === "string" ? cause.message : undefined;
}
