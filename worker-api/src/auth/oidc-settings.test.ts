import type { SettingsProblem } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { readControlPlaneSettings } from "../control-plane-settings.js";
import { GITHUB_ACTIONS_ISSUER, GITHUB_ACTIONS_JWKS_URL } from "./oidc.js";
import { readOidcSettings } from "./oidc-settings.js";

function read(env: Record<string, string>) {
  const problems: SettingsProblem[] = [];
  const settings = readOidcSettings(env, problems);
  return { settings, problems: problems.map((p) => p.message) };
}

describe("WHILLY_OIDC_* settings", () => {
  it("are off while no variable is set", () => {
    expect(read({})).toEqual({ settings: undefined, problems: [] });
    expect(read({ WHILLY_OIDC_AUDIENCE: "  " })).toEqual({ settings: undefined, problems: [] });
    const problems: SettingsProblem[] = [];
    const shared = readControlPlaneSettings({ WHILLY_WORKER_BOOTSTRAP_TOKEN: "x".repeat(20) }, problems);
    expect(shared.auth.oidc).toBeUndefined();
  });

  it("default the JWKS and issuer to GitHub's, list repositories in lower case", () => {
    expect(
      read({
        WHILLY_OIDC_AUDIENCE: "https://whilly.example",
        WHILLY_OIDC_REPOSITORIES: "Acme/Widgets, acme/gadgets acme/widgets",
      }),
    ).toEqual({
      settings: {
        audience: "https://whilly.example",
        repositories: ["acme/widgets", "acme/gadgets"],
        jwksUrl: GITHUB_ACTIONS_JWKS_URL,
        issuer: GITHUB_ACTIONS_ISSUER,
        jwksTimeoutMs: 5000,
      },
      problems: [],
    });
    const custom = read({
      WHILLY_OIDC_AUDIENCE: "a",
      WHILLY_OIDC_REPOSITORIES: "acme/widgets",
      WHILLY_OIDC_JWKS_URL: "http://127.0.0.1:9/jwks",
      WHILLY_OIDC_ISSUER: "https://issuer.example",
      WHILLY_OIDC_JWKS_TIMEOUT: "0.5",
    });
    expect(custom.settings).toMatchObject({
      jwksUrl: "http://127.0.0.1:9/jwks",
      issuer: "https://issuer.example",
      jwksTimeoutMs: 500,
    });
  });

  it("name every missing or bad variable once one is set", () => {
    expect(
      read({ WHILLY_OIDC_JWKS_URL: "ftp://keys.example/jwks", WHILLY_OIDC_JWKS_TIMEOUT: "soon" }).problems,
    ).toEqual([
      "WHILLY_OIDC_AUDIENCE is not set, but other WHILLY_OIDC_* variables are",
      "WHILLY_OIDC_REPOSITORIES is not set, but other WHILLY_OIDC_* variables are",
      "WHILLY_OIDC_JWKS_URL must be an http(s) URL; got 'ftp://keys.example/jwks'",
      "WHILLY_OIDC_JWKS_TIMEOUT must be a positive number of seconds up to 60; got 'soon'",
    ]);
    expect(
      read({ WHILLY_OIDC_AUDIENCE: "a", WHILLY_OIDC_REPOSITORIES: "acme, acme/widgets, a/b/c" }).problems,
    ).toEqual(["WHILLY_OIDC_REPOSITORIES must list repositories as owner/repo; got 'acme', 'a/b/c'"]);
  });
});
