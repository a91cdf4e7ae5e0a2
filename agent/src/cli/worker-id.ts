/**
 * The worker id a per-worker bearer speaks for: the `sub` claim of a JWT (`header.payload.signature`,
 * base64url). Read without verifying the signature: the control plane verifies it, and the worker only
 * needs to know which id to put in its requests.
 * @returns the `sub` claim, or `undefined` when the token is not a JWT with a string `sub` (for example
 *   the deprecated shared `WHILLY_WORKER_TOKEN`, which speaks for any worker id).
 */
export function workerIdFromToken(token: string): string | undefined {
  const parts = token.split(".");
  const payload = parts[1];
  if (parts.length !== 3 || payload === undefined || !/^[A-Za-z0-9_-]+$/.test(payload)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (typeof claims !== "object" || claims === null) return undefined;
    const sub = (claims as { sub?: unknown }).sub;
    return typeof sub === "string" && sub.trim() !== "" ? sub : undefined;
  } catch {
    return undefined;
  }
}
