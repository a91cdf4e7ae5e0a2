import { type Credential, Unauthorized } from "@whilly/core";

const HINTS: Record<Credential, string> = {
  worker_bearer:
    "send 'Authorization: Bearer <token>' with the token `whilly worker register` printed for this worker",
  bootstrap: "send 'Authorization: Bearer <token>' with the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN",
  reader:
    "send 'Authorization: Bearer <token>' with the control plane's WHILLY_ADMIN_TOKEN or a token `whilly token create --read-only` printed",
  plan_writer:
    "send 'Authorization: Bearer <token>' with the control plane's WHILLY_ADMIN_TOKEN, or a GitHub Actions OIDC token for its WHILLY_OIDC_AUDIENCE",
  oidc: "ask GitHub for a new OIDC token with the audience the control plane's WHILLY_OIDC_AUDIENCE names",
  admin: "send 'Authorization: Bearer <token>' with the control plane's WHILLY_ADMIN_TOKEN",
  session: "sign in again: POST /api/v1/session with 'Authorization: Bearer <token>'",
  sign_in_code: "run `whilly run --ui` again for a new link",
};

/**
 * The token of an `Authorization: Bearer <token>` header (docs/protocol.md#authentication): the scheme is matched
 * case-insensitively, the token is case-sensitive and trimmed.
 * @param credential which secret the route wants; it decides the 401's `error_code` and hint.
 * @throws {Unauthorized} `missing bearer token`, `invalid authorization scheme` or `empty bearer token`.
 */
export function readBearer(authorization: string | undefined, credential: Credential): string {
  const hint = HINTS[credential];
  if (authorization === undefined || authorization.trim() === "") {
    throw new Unauthorized("missing bearer token", { credential, hint });
  }
  const match = /^\s*(\S+)(?:\s+(.*))?$/s.exec(authorization);
  if (match?.[1]?.toLowerCase() !== "bearer") {
    throw new Unauthorized("invalid authorization scheme", { credential, hint });
  }
  const token = (match[2] ?? "").trim();
  if (token === "") throw new Unauthorized("empty bearer token", { credential, hint });
  return token;
}
