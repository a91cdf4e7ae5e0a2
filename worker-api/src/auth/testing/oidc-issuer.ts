import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";

export { GITHUB_ISSUER, signOidcToken } from "./oidc-token.js";

/**
 * A stand-in for GitHub's OIDC issuer: an RS256 key pair whose public half is served as a JWKS by a
 * local HTTP server, and tokens signed with the private half carrying GitHub's claims.
 */
export type TestIssuer = {
  /** `http://127.0.0.1:<port>/.well-known/jwks`. */
  readonly jwksUrl: string;
  /** The private key as a JWK, for signing where the key object cannot travel (the workerd tests). */
  readonly privateJwk: JWK;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  close(): Promise<void>;
};

/** Starts a {@link TestIssuer} on a free port of 127.0.0.1. */
export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256" };
  let fetches = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== "/.well-known/jwks") {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks`,
    privateJwk,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
