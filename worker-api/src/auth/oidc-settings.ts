import { readDuration, type SettingsProblem, type StringEnv } from "@whilly/core";
import { GITHUB_ACTIONS_ISSUER, GITHUB_ACTIONS_JWKS_URL, type OidcSettings } from "./oidc.js";

const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const NAMES = [
  "WHILLY_OIDC_AUDIENCE",
  "WHILLY_OIDC_REPOSITORIES",
  "WHILLY_OIDC_JWKS_URL",
  "WHILLY_OIDC_ISSUER",
  "WHILLY_OIDC_JWKS_TIMEOUT",
] as const;

/**
 * Reads GitHub Actions OIDC for `POST /api/v1/plans` (docs/protocol.md#creating-plans). Off (returns
 * `undefined`) while no `WHILLY_OIDC_*` variable is set; once one is:
 *
 * - `WHILLY_OIDC_AUDIENCE` (required): the `aud` a token must carry (the workflow asks for it).
 * - `WHILLY_OIDC_REPOSITORIES` (required): the `owner/repo` list (commas or spaces) whose workflows may
 *   create plans, each only for its own issues.
 * - `WHILLY_OIDC_JWKS_URL` (default GitHub's, {@link GITHUB_ACTIONS_JWKS_URL}): an http(s) URL.
 * - `WHILLY_OIDC_ISSUER` (default {@link GITHUB_ACTIONS_ISSUER}).
 * - `WHILLY_OIDC_JWKS_TIMEOUT` (s, default 5): how long fetching the JWKS may take.
 *
 * Appends one problem per bad variable to `problems`.
 */
export function readOidcSettings(env: StringEnv, problems: SettingsProblem[]): OidcSettings | undefined {
  if (NAMES.every((name) => !env[name]?.trim())) return undefined;
  const audience = env.WHILLY_OIDC_AUDIENCE?.trim() ?? "";
  if (audience === "") {
    problems.push({
      message: "WHILLY_OIDC_AUDIENCE is not set, but other WHILLY_OIDC_* variables are",
      hint: "set it to the audience your workflow asks GitHub for (e.g. the control plane's URL), or unset every WHILLY_OIDC_* variable to turn OIDC off",
    });
  }
  const listed = (env.WHILLY_OIDC_REPOSITORIES ?? "").split(/[\s,]+/).filter((r) => r !== "");
  const bad = listed.filter((r) => !REPOSITORY.test(r));
  if (listed.length === 0 || bad.length > 0) {
    problems.push({
      message:
        listed.length === 0
          ? "WHILLY_OIDC_REPOSITORIES is not set, but other WHILLY_OIDC_* variables are"
          : `WHILLY_OIDC_REPOSITORIES must list repositories as owner/repo; got ${bad.map((r) => `'${r}'`).join(", ")}`,
      hint: "e.g. WHILLY_OIDC_REPOSITORIES=acme/widgets,acme/gadgets (the workflows that may create plans)",
    });
  }
  const jwksUrl = env.WHILLY_OIDC_JWKS_URL?.trim() || GITHUB_ACTIONS_JWKS_URL;
  if (!isHttpUrl(jwksUrl)) {
    problems.push({
      message: `WHILLY_OIDC_JWKS_URL must be an http(s) URL; got '${jwksUrl}'`,
      hint: `unset it for GitHub's (${GITHUB_ACTIONS_JWKS_URL})`,
    });
  }
  const jwksTimeoutMs = readDuration(
    env,
    "WHILLY_OIDC_JWKS_TIMEOUT",
    { fallbackMs: 5000, unitMs: 1000, maxMs: 60_000 },
    problems,
  );
  return {
    audience,
    repositories: [...new Set(listed.map((r) => r.toLowerCase()))],
    jwksUrl,
    issuer: env.WHILLY_OIDC_ISSUER?.trim() || GITHUB_ACTIONS_ISSUER,
    jwksTimeoutMs,
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
