import { type BinProcess, baseEnv, makeRepo, spawnBin, waitFor } from "../support/cli.js";

/** The admin token and OIDC audience of {@link startServer}'s server. */
export const ADMIN = "admin-s3cret-for-forge-0123";
export const AUDIENCE = "whilly-forge-test";

/** A running `whilly server` (a real process on its own embedded store) and its URL. */
export type RunningServer = { readonly url: string; readonly proc: BinProcess; stop(): Promise<void> };

/**
 * Starts `whilly server` taking the admin token {@link ADMIN} and GitHub Actions OIDC tokens of
 * `repositories` for audience {@link AUDIENCE}, their keys fetched from `jwksUrl`.
 */
export async function startServer(
  template: string,
  jwksUrl: string,
  repositories: string,
): Promise<RunningServer> {
  const env = baseEnv({
    WHILLY_WORKER_BOOTSTRAP_TOKEN: "bootstrap-s3cret-for-forge",
    WHILLY_ADMIN_TOKEN: ADMIN,
    WHILLY_OIDC_JWKS_URL: jwksUrl,
    WHILLY_OIDC_AUDIENCE: AUDIENCE,
    WHILLY_OIDC_REPOSITORIES: repositories,
    WHILLY_OIDC_JWKS_TIMEOUT: "5",
  });
  const proc = spawnBin(["server", "--port", "0"], { cwd: makeRepo(template), env });
  const url = await waitFor("the server's URL", () => /^(http:\/\/\S+)\n/m.exec(proc.out())?.[1], 60_000);
  return {
    url,
    proc,
    stop: async () => {
      proc.child.kill("SIGTERM");
      await proc.done;
    },
  };
}

/** `GET path` on the server with the admin token. */
export async function adminGet(url: string, path: string): Promise<unknown> {
  const reply = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return reply.json();
}
