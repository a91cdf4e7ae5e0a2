import { ConfigurationError, Forbidden, Unauthorized } from "@whilly/core";
import type { AuthPort, Caller, Logger } from "../ports/index.js";
import type { Store } from "../store/store.js";
import { readBearer } from "./bearer.js";
import { warnLegacyTokenOnce } from "./legacy-warning.js";
import { createOidcVerifier, type OidcSettings } from "./oidc.js";
import { READ_TOKEN_PREFIX } from "./read-token.js";
import { sameSecret, sha256Hex } from "./secrets.js";
import { DEFAULT_SESSION_TTL_MS } from "./session.js";
import { sessionAuth } from "./session-auth.js";
import { assertSigningSecret, deriveSigningKey } from "./signing-key.js";
import { STRONG_SECRET_HOWTO, workerSecretProblem } from "./worker-secrets.js";
import { mintWorkerToken, verifyWorkerToken } from "./worker-token.js";

/** Options of {@link createTokenAuth}; each runtime reads them from its own settings. */
export type TokenAuthOptions = {
  /** `WHILLY_WORKER_BOOTSTRAP_TOKEN`: accepted by `POST /workers/register` only. */
  readonly bootstrapToken: string;
  /** `WHILLY_WORKER_TOKEN`, the deprecated shared bearer; `undefined` (or blank) turns it off. */
  readonly legacyToken?: string | undefined;
  /** `WHILLY_TOKEN_SECRET` (at least 32 characters); `undefined` derives the key from the bootstrap token. */
  readonly signingSecret?: string | undefined;
  /** `WHILLY_ADMIN_TOKEN`: reads the read API; `undefined` (or blank) for none. */
  readonly adminToken?: string | undefined;
  /** `WHILLY_PUBLIC_READ=1`: the read API answers anyone, without a token. */
  readonly publicRead?: boolean | undefined;
  /** `WHILLY_OIDC_*`: GitHub Actions workflows that may create plans; `undefined` for none. */
  readonly oidc?: OidcSettings | undefined;
  /** `WHILLY_SESSION_TTL` (ms): how long a browser session lasts; default 12 hours. */
  readonly sessionTtlMs?: number | undefined;
  /** `WHILLY_SUPPRESS_WORKER_TOKEN_WARNING=1`: no warning when the shared token is used. */
  readonly suppressLegacyWarning?: boolean | undefined;
  readonly log?: Logger | undefined;
};

/**
 * Auth for a remote control plane (docs/protocol.md#authentication):
 *
 * - `POST /workers/register` takes the bootstrap token only (compared in constant time).
 * - Worker routes take a per-worker bearer: a JWT signed with the signing key whose `sub` is the
 *   worker id (see `worker-token.ts`). It is honoured when the signature holds, its SHA-256 hash is
 *   stored (so revocation works on the next request: the lookup runs in the request's own store scope),
 *   and the stored row is the worker `sub` names. The caller may then act only as that worker. A
 *   token's signature is checked once per auth instance; the stored-hash check runs on every request,
 *   as its own lookup or, for the claim and the finishes, inside the operation's statement
 *   ({@link AuthPort.presentedWorker}).
 * - The deprecated shared token, when configured, is accepted on worker routes for any worker id
 *   (owner and version checks on tasks still apply), with one warning per process; a claim or
 *   heartbeat for a worker id nobody registered registers it (see {@link Caller.registersWorkers}).
 * - The read API takes the admin token (compared in constant time) or a read-only token whose SHA-256
 *   is stored and not revoked (looked up per request); with `publicRead`, anyone. A worker bearer or
 *   the bootstrap token is not a read token (see `readerCredential` for the one route a worker reads).
 * - Plan creation (`POST /api/v1/plans`) takes the admin token, or a GitHub Actions OIDC token (a JWT
 *   whose `iss` is the configured issuer, verified against the JWKS, audience and allowed repositories:
 *   see `oidc.ts`); a read-only token gets 403, anything else 401.
 * - Operator actions (reset or release one task, pause or resume workers) take the admin token only;
 *   a read-only token gets 403.
 * - Browser sessions (`POST /api/v1/session`, see `session-auth.ts`) open with the admin token or a
 *   live read-only token; their cookie is a read credential only.
 * - Everything else is 401; the bootstrap token on a worker route and a worker token on register too.
 *   Worker routes screen the credential in process before they read the body
 *   ({@link AuthPort.screenWorker}), so a 401 never depends on the body.
 *
 * @throws {ConfigurationError} at build time for a bootstrap, shared or admin token that is blank or
 *   shorter than 16 characters (`MIN_WORKER_SECRET_LENGTH`), a shared token equal to the bootstrap token
 *   (it would open task routes to every holder of the join secret), an admin token equal to either, or
 *   a signing secret shorter than 32 characters.
 */
export function createTokenAuth(options: TokenAuthOptions): AuthPort {
  const bootstrapToken = options.bootstrapToken.trim();
  const legacyToken = options.legacyToken?.trim() || undefined;
  const adminToken = options.adminToken?.trim() || undefined;
  for (const [name, secret] of [
    ["WHILLY_WORKER_BOOTSTRAP_TOKEN", bootstrapToken],
    ["WHILLY_WORKER_TOKEN", legacyToken],
    ["WHILLY_ADMIN_TOKEN", adminToken],
  ] as const) {
    const problem = secret === undefined ? undefined : workerSecretProblem(name, secret);
    if (problem !== undefined) {
      throw new ConfigurationError(problem, {
        hint: `set it to a long random secret (${STRONG_SECRET_HOWTO}) and give it only to whoever registers or runs workers`,
      });
    }
  }
  if (legacyToken === bootstrapToken) {
    throw new ConfigurationError("WHILLY_WORKER_TOKEN must differ from WHILLY_WORKER_BOOTSTRAP_TOKEN", {
      hint: "unset WHILLY_WORKER_TOKEN and register each worker (whilly worker register)",
    });
  }
  if (adminToken !== undefined && (adminToken === bootstrapToken || adminToken === legacyToken)) {
    throw new ConfigurationError("WHILLY_ADMIN_TOKEN must differ from the worker tokens", {
      hint: `give the read API its own secret (${STRONG_SECRET_HOWTO})`,
    });
  }
  if (options.signingSecret !== undefined) assertSigningSecret(options.signingSecret);
  let key: Promise<Uint8Array> | undefined;
  const signingKey = () => {
    key ??= deriveSigningKey({ bootstrapToken, signingSecret: options.signingSecret });
    return key;
  };
  const verified = new VerifiedTokens();
  const oidc = options.oidc && createOidcVerifier(options.oidc);
  const invalid = () =>
    new Unauthorized("invalid token", {
      hint: "the token is unknown or revoked; register the worker again (whilly worker register)",
    });

  return {
    ...sessionAuth({
      signingKey,
      adminToken,
      publicRead: options.publicRead === true,
      ttlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
    }),

    async screenWorker(authorization) {
      const token = readBearer(authorization, "worker_bearer");
      if ((await verified.verify(await signingKey(), token)) !== undefined) return;
      if (legacyToken !== undefined && (await sameSecret(token, legacyToken))) return;
      throw invalid();
    },

    async presentedWorker(authorization) {
      let token: string;
      try {
        token = readBearer(authorization, "worker_bearer");
      } catch {
        return undefined;
      }
      const bearer = await verified.verify(await signingKey(), token);
      return bearer && { workerId: bearer.subject, tokenHash: bearer.tokenHash };
    },

    async authenticateBootstrap(authorization) {
      const token = readBearer(authorization, "bootstrap");
      if (!(await sameSecret(token, bootstrapToken))) {
        throw new Unauthorized("invalid bootstrap token", {
          credential: "bootstrap",
          hint: "use the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN",
        });
      }
    },

    async authenticateWorker(authorization, store): Promise<Caller> {
      const token = readBearer(authorization, "worker_bearer");
      const workerId = await perWorkerIdentity(verified, await signingKey(), token, store);
      if (workerId !== undefined) return { workerId };
      if (legacyToken !== undefined && (await sameSecret(token, legacyToken))) {
        warnLegacyTokenOnce(options.log, options.suppressLegacyWarning === true);
        return { workerId: undefined, registersWorkers: true };
      }
      throw invalid();
    },

    async authenticateReader(authorization, store) {
      if (options.publicRead === true) return;
      const token = readBearer(authorization, "reader");
      if (adminToken !== undefined && (await sameSecret(token, adminToken))) return;
      if ((await store.findReadTokenByHash(await sha256Hex(token))) !== undefined) return;
      throw new Unauthorized("invalid read token", {
        credential: "reader",
        hint: "use the control plane's WHILLY_ADMIN_TOKEN or a live token from `whilly token create --read-only` (whilly token list)",
      });
    },

    async authenticatePlanWriter(authorization) {
      const token = readBearer(authorization, "plan_writer");
      if (adminToken !== undefined && (await sameSecret(token, adminToken))) return { kind: "admin" };
      if (oidc?.claims(token)) return { kind: "oidc", ...(await oidc.verify(token)) };
      if (token.startsWith(READ_TOKEN_PREFIX)) {
        throw new Forbidden("a read-only token cannot create plans", {
          reason: "read_only_token",
          hint: "use the control plane's WHILLY_ADMIN_TOKEN",
        });
      }
      throw new Unauthorized(
        `invalid token: creating plans takes the admin token${oidc ? " or a GitHub Actions OIDC token" : ""}`,
        { credential: "plan_writer", hint: HINTS_FOR_PLAN_WRITERS },
      );
    },

    async authenticateAdmin(authorization) {
      const token = readBearer(authorization, "admin");
      if (adminToken !== undefined && (await sameSecret(token, adminToken))) return;
      if (token.startsWith(READ_TOKEN_PREFIX)) {
        throw new Forbidden("a read-only token cannot act on tasks or workers", {
          reason: "read_only_token",
          hint: "use the control plane's WHILLY_ADMIN_TOKEN",
        });
      }
      throw new Unauthorized("invalid token: operator actions take the admin token", {
        credential: "admin",
        hint:
          adminToken === undefined
            ? "the control plane has no WHILLY_ADMIN_TOKEN: set one there to allow operator actions"
            : "use the control plane's WHILLY_ADMIN_TOKEN",
      });
    },

    async issueWorkerToken(workerId) {
      const token = await mintWorkerToken(await signingKey(), workerId);
      return { token, tokenHash: await sha256Hex(token) };
    },
  };
}

const HINTS_FOR_PLAN_WRITERS =
  "use the control plane's WHILLY_ADMIN_TOKEN, or a GitHub Actions OIDC token when it sets WHILLY_OIDC_AUDIENCE and WHILLY_OIDC_REPOSITORIES";

/** What checking a bearer's signature established: the worker it names and the hash it is stored under. */
type VerifiedToken = { readonly subject: string; readonly tokenHash: string };

/** Bearers whose signature was already checked; each entry is a few hundred bytes. */
const MAX_VERIFIED_TOKENS = 10_000;

/**
 * Remembers the bearers whose signature held, so a worker's every request does not pay for an HMAC
 * check and a SHA-256 (WebCrypto jobs: about a tenth of the control plane's CPU per task). A token's
 * signature and hash never change and the key lives as long as the auth instance, so only the database
 * lookup that makes revocation immediate runs per request. Only valid tokens are kept, oldest dropped
 * first, so strangers cannot fill it.
 */
class VerifiedTokens {
  readonly #known = new Map<string, VerifiedToken>();

  async verify(key: Uint8Array, token: string): Promise<VerifiedToken | undefined> {
    const known = this.#known.get(token);
    if (known !== undefined) return known;
    const subject = await verifyWorkerToken(key, token);
    if (subject === undefined) return undefined;
    const verified = { subject, tokenHash: await sha256Hex(token) };
    if (this.#known.size >= MAX_VERIFIED_TOKENS) {
      const oldest = this.#known.keys().next();
      if (!oldest.done) this.#known.delete(oldest.value);
    }
    this.#known.set(token, verified);
    return verified;
  }
}

/** The worker a per-worker bearer speaks for, or `undefined` when it is not a live one. */
async function perWorkerIdentity(
  verified: VerifiedTokens,
  key: Uint8Array,
  token: string,
  store: Store,
): Promise<string | undefined> {
  const bearer = await verified.verify(key, token);
  if (bearer === undefined) return undefined;
  const worker = await store.findWorkerByTokenHash(bearer.tokenHash);
  return worker?.workerId === bearer.subject ? bearer.subject : undefined;
}
