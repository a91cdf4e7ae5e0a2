import {
  ConfigurationError,
  errorEnvelopeSchema,
  statusCountsSchema,
  type TaskStatus,
  TransportError,
} from "@whilly/core";
import { describeFetchError, safeJson } from "./reply.js";
import type { Fetch } from "./task-client.js";

/** Tasks of a plan counted by status, as the read API gives them. */
export type StatusCounts = Readonly<Partial<Record<TaskStatus, number>>>;

/**
 * What the control plane said about a plan: it exists (with its task counts when the answer held
 * them), or it could not be asked (and why).
 */
export type PlanCheck =
  | { readonly found: true; readonly counts: StatusCounts | undefined }
  | { readonly found: false; readonly why: string };

/**
 * Asks the control plane's read API whether a plan exists: `GET {baseUrl}/api/v1/plans/{planId}`.
 * A claim for a plan that does not exist is answered 204 for ever, so a worker asks at start; it asks
 * again while it waits, for the task counts.
 * The worker's bearer is sent: it reads this one route of the read API (the plan summary). A control
 * plane that answers otherwise (no read API, 401 or 403) leaves the question
 * open: the worker cannot tell, and the claim loop works without the answer.
 * @param input.baseUrl the control plane's URL without a trailing slash.
 * @returns `{found: true, counts}` on 200 (`counts` undefined when the body has none), `{found: false,
 *   why}` when the answer says nothing about the plan.
 * @throws {ConfigurationError} naming `--plan` when the control plane says the plan is not stored (404
 *   `plan_not_found`).
 * @throws {TransportError} retryable, when the control plane cannot be reached or answers 5xx.
 */
export async function checkPlan(input: {
  baseUrl: string;
  fetch: Fetch;
  planId: string;
  token?: string | undefined;
  signal?: AbortSignal | undefined;
}): Promise<PlanCheck> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (input.token) headers.authorization = `Bearer ${input.token}`;
  let response: Response;
  try {
    response = await input.fetch(`${input.baseUrl}/api/v1/plans/${encodeURIComponent(input.planId)}`, {
      method: "GET",
      headers,
      ...(input.signal ? { signal: input.signal } : {}),
    });
  } catch (cause) {
    const why = describeFetchError(cause);
    throw new TransportError(`cannot reach the control plane at ${input.baseUrl}: ${why}`, undefined, {
      cause,
    });
  }
  const text = await response.text();
  if (response.ok) {
    const body = safeJson(text);
    const counts = statusCountsSchema.safeParse(
      typeof body === "object" && body !== null ? (body as { counts?: unknown }).counts : undefined,
    );
    return { found: true, counts: counts.success ? counts.data : undefined };
  }
  if (response.status >= 500) {
    throw new TransportError(`control plane answered ${response.status} to the plan check`, response.status);
  }
  const envelope = errorEnvelopeSchema.safeParse(safeJson(text));
  if (response.status === 404 && envelope.success && envelope.data.error_code === "plan_not_found") {
    throw new ConfigurationError(
      `--plan (WHILLY_PLAN_ID) '${input.planId}' is not a plan stored on the control plane at ${input.baseUrl}`,
      {
        hint: "check the id: whilly plan list on the control plane shows the stored plans; import the plan (whilly plan import) before starting workers",
      },
    );
  }
  const code = envelope.success ? ` ${envelope.data.error_code}` : "";
  return { found: false, why: `the read API answered ${response.status}${code}` };
}
