import { importJWK, type JWK, type JWTPayload, SignJWT } from "jose";

// Signs test OIDC tokens with jose alone, so tests inside workerd can use it as well as Node tests.

/** The issuer of GitHub Actions OIDC tokens, which the test issuer signs as. */
export const GITHUB_ISSUER = "https://token.actions.githubusercontent.com";

/**
 * A GitHub Actions OIDC token signed with `privateJwk`: issuer {@link GITHUB_ISSUER}, the given
 * audience and `repository`, issued now and valid for `expiresInSec` (negative: already expired).
 */
export async function signOidcToken(
  privateJwk: JWK,
  claims: { audience: string; repository: string; expiresInSec?: number; issuer?: string } & JWTPayload,
): Promise<string> {
  const { audience, repository, expiresInSec = 300, issuer = GITHUB_ISSUER, ...rest } = claims;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    repository,
    repository_owner: repository.split("/")[0],
    ref: "refs/heads/main",
    workflow: "whilly intake",
    event_name: "issues",
    ...rest,
  })
    .setProtectedHeader({ alg: "RS256", kid: privateJwk.kid ?? "test-key", typ: "JWT" })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(`repo:${repository}:ref:refs/heads/main`)
    .setIssuedAt(now - 10)
    .setNotBefore(now - 10)
    .setExpirationTime(now + expiresInSec)
    .sign(await importJWK(privateJwk, "RS256"));
}
