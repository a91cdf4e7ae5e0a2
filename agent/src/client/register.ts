import { type RegisterResponse, registerResponseSchema, TransportError, Unauthorized } from "@whilly/core";
import { describeFetchError, envelopeDetail, safeJson } from "./reply.js";
import type { Fetch } from "./task-client.js";

/** How long registration may take (ms) before it is given up. */
export const REGISTER_TIMEOUT_MS = 30_000;

/**
 * Registers a new worker with a control plane: `POST {baseUrl}/workers/register` with the bootstrap
 * token as bearer and body `{hostname}` (protocol v1). A path on `baseUrl` is kept.
 * @param input.baseUrl the control plane's URL without a trailing slash, e.g. `http://cp:8000`.
 * @param input.signal abandons the request (with a `TransportError`); it is also given up after
 *   {@link REGISTER_TIMEOUT_MS}.
 * @returns the new worker's id and its bearer (a JWT whose `sub` is the id), shown this once.
 * @throws {Unauthorized} (credential `bootstrap`) when the control plane refuses the bootstrap token (401).
 * @throws {TransportError} when it cannot be reached, answers another error, or answers an unexpected body.
 */
export async function registerWorker(input: {
  baseUrl: string;
  fetch: Fetch;
  bootstrapToken: string;
  hostname: string;
  signal?: AbortSignal | undefined;
}): Promise<RegisterResponse> {
  const timeout = AbortSignal.timeout(REGISTER_TIMEOUT_MS);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await input.fetch(`${input.baseUrl}/workers/register`, {
      method: "POST",
      headers: { authorization: `Bearer ${input.bootstrapToken}`, "content-type": "application/json" },
      body: JSON.stringify({ hostname: input.hostname }),
      signal,
    });
  } catch (cause) {
    const why = timeout.aborted
      ? `no answer within ${REGISTER_TIMEOUT_MS / 1000} s`
      : describeFetchError(cause);
    throw new TransportError(`cannot reach the control plane at ${input.baseUrl}: ${why}`, undefined, {
      cause,
      hint: `check the URL, and that whilly server runs there and is reachable from this machine (curl ${input.baseUrl}/health)`,
    });
  }
  const text = await response.text();
  if (response.status === 401) {
    throw new Unauthorized(`the control plane at ${input.baseUrl} refused the bootstrap token (401)`, {
      credential: "bootstrap",
      hint: "pass the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN with --bootstrap-token or that variable",
    });
  }
  if (response.status !== 201) {
    throw new TransportError(
      `registration failed: HTTP ${response.status}${envelopeDetail(text)}`,
      response.status,
      {
        retryable: response.status >= 500,
        hint: `check that ${input.baseUrl} is a whilly control plane (whilly server); its log says why it failed`,
      },
    );
  }
  const parsed = registerResponseSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new TransportError(`the control plane at ${input.baseUrl} answered an unexpected body`, 201, {
      retryable: false,
      hint: `check that ${input.baseUrl} is a whilly control plane (whilly server) of this version`,
    });
  }
  return parsed.data;
}
