import { Forbidden, Unauthorized } from "@whilly/core";
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify } from "jose";

/** GitHub Actions' OIDC issuer: the `iss` of every token a workflow job asks for. */
export const GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";
/** Where GitHub publishes the keys its OIDC tokens are signed with. */
export const GITHUB_ACTIONS_JWKS_URL = `${GITHUB_ACTIONS_ISSUER}/.well-known/jwks`;

/**
 * Who may create plans with an OIDC token (`WHILLY_OIDC_*`, docs/protocol.md#creating-plans): tokens
 * signed by a key of `jwksUrl`, issued by `issuer`, for `audience`, whose `repository` claim is one of
 * `repositories` (`owner/repo`, lower case).
 */
export type OidcSettings = {
  readonly jwksUrl: string;
  readonly issuer: string;
  readonly audience: string;
  readonly repositories: readonly string[];
  /** How long fetching the JWKS may take (ms) before the token is refused. */
  readonly jwksTimeoutMs: number;
};

/** A verified OIDC caller: the repository (`owner/repo`, lower case) its workflow runs in. */
export type OidcCaller = { readonly repository: string };

/** Verifies OIDC tokens; {@link OidcVerifier.claims} tells whether a token is meant as one. */
export type OidcVerifier = {
  /** True when `token` is a JWT naming the configured issuer (unverified): an OIDC token, good or bad. */
  claims(token: string): boolean;
  /**
   * @throws {Unauthorized} (credential `oidc`) for a bad signature, issuer, audience or expiry, or a
   *   JWKS that cannot be fetched. @throws {Forbidden} (`repository_not_allowed`) for a valid token of
   *   a repository not in the list.
   */
  verify(token: string): Promise<OidcCaller>;
};

/**
 * Builds the verifier. The JWKS is fetched on first use and cached by jose (re-fetched when a token
 * names an unknown key, at most every 30 s). Only RS256, which GitHub signs with, is accepted.
 */
export function createOidcVerifier(settings: OidcSettings): OidcVerifier {
  const jwks = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: settings.jwksTimeoutMs });
  const allowed = new Set(settings.repositories);
  return {
    claims(token) {
      try {
        return decodeJwt(token).iss === settings.issuer;
      } catch {
        return false;
      }
    },
    async verify(token) {
      let repository: unknown;
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: settings.issuer,
          audience: settings.audience,
          algorithms: ["RS256"],
          requiredClaims: ["exp"],
        });
        repository = payload.repository;
      } catch (error) {
        throw new Unauthorized(`OIDC token refused: ${refusal(error, settings)}`, {
          credential: "oidc",
          cause: error,
        });
      }
      if (typeof repository !== "string" || repository === "") {
        throw new Unauthorized("OIDC token refused: it has no 'repository' claim", { credential: "oidc" });
      }
      const normalized = repository.toLowerCase();
      if (!allowed.has(normalized)) {
        throw new Forbidden(
          `repository '${repository}' may not create plans here (WHILLY_OIDC_REPOSITORIES does not list it)`,
          {
            reason: "repository_not_allowed",
            hint: "add it to the control plane's WHILLY_OIDC_REPOSITORIES",
          },
        );
      }
      return { repository: normalized };
    },
  };
}

/** Why jose refused a token, in words that name the setting to compare with and no key material. */
function refusal(error: unknown, settings: OidcSettings): string {
  if (error instanceof errors.JWTExpired) return "it has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return `its audience is not '${settings.audience}' (WHILLY_OIDC_AUDIENCE)`;
    if (error.claim === "iss") return `its issuer is not '${settings.issuer}'`;
    return `its '${error.claim}' claim is invalid (${error.reason})`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the JWKS signed it";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "its signature does not verify";
  if (error instanceof errors.JOSEAlgNotAllowed) return "it is not signed with RS256";
  if (error instanceof errors.JWKSTimeout) return `the JWKS at ${settings.jwksUrl} did not answer in time`;
  if (error instanceof errors.JOSEError) return `it is not a valid token (${error.code})`;
  return `the JWKS at ${settings.jwksUrl} could not be read`;
}
