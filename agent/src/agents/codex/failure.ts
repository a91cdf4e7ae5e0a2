/**
 * How Codex words a usage limit (`You’ve hit your usage limit. Try again at 6:06 PM.`, the error type
 * `usage_limit_reached`) and a rate limit it gave up on (`exceeded retry limit, last status: 429 Too Many
 * Requests`, `rate limit exceeded: ...`, an HTTP 429).
 */
const LIMIT_TEXT =
  /you['’]ve hit your (?:[\w-]+ )*limit|usage_limit_reached|usage limit reached|rate[ _]limit[ _]exceeded|last status: 429\b|\b429 too many requests\b|\bstatus:? 429\b/i;

/**
 * How Codex words missing or refused credentials: an HTTP 401 (`unexpected status 401 Unauthorized:
 * Incorrect API key provided`), its provider's key variable unset (`Missing environment variable:
 * `OPENAI_API_KEY``), no login (`Not logged in`, `please re-run `codex login``).
 */
const AUTH_TEXT =
  /\bstatus:? 401\b|\b401 unauthorized\b|invalid_api_key|incorrect api key|missing environment variable: `?\w*(?:key|token)\w*`?|not logged in|not signed in|re-run `?codex login|\b(?:OPENAI|CODEX)_API_KEY\b/i;

/** `unexpected status 503 Service Unavailable`, `last status: 500`: the HTTP status Codex names. */
const STATUS_TEXT = /\b(?:unexpected )?status:? ([45]\d\d)\b/i;

/**
 * Messages Codex prints as `error` items or events that are not failures by themselves: the model's
 * metadata missing from its catalog (every custom model), a transport fallback, a retry announced.
 */
const NOISE_TEXT = /^model metadata for .* not found|^falling back from websockets|^reconnecting\.\.\./i;

/** True for Codex's wording of a usage or rate limit. */
export function isUsageLimit(message: string): boolean {
  return LIMIT_TEXT.test(message);
}

/** True for a message that is not a failure by itself (see {@link NOISE_TEXT}). */
export function isNoise(message: string): boolean {
  return NOISE_TEXT.test(message.trim());
}

/**
 * The HTTP status a failed run's messages stand for, in the result's `api_error_status` (which the
 * shared classifier reads): 429 for a usage or rate limit, 401 for missing or refused credentials,
 * else the status a message names; `undefined` when none does.
 */
export function apiStatusOf(messages: readonly string[]): number | undefined {
  if (messages.some(isUsageLimit)) return 429;
  if (messages.some((m) => AUTH_TEXT.test(m))) return 401;
  for (const message of messages) {
    const status = STATUS_TEXT.exec(message)?.[1];
    if (status !== undefined) return Number(status);
  }
  return undefined;
}
