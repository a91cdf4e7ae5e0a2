import type { Unauthorized } from "@whilly/core";
import type { Store } from "../store/store.js";

/**
 * Who is calling. `workerId` set: the caller may act only as that worker (per-worker bearer).
 * `workerId` undefined: the caller may act as any worker (in-process local mode, legacy shared token);
 * owner and version checks on tasks still apply.
 */
export type Caller = {
  readonly workerId: string | undefined;
  /**
   * True for the legacy shared token: its workers pick their own id and never register, so routes
   * that need the worker to exist (claim, heartbeat) register an unknown id on first use.
   */
  readonly registersWorkers?: boolean;
};

/**
 * Who may create plans (`POST /api/v1/plans`): the holder of the admin token (any plan), or a GitHub
 * Actions workflow proven by its OIDC token, which may only touch the issues of its own `repository`
 * (`owner/repo`, lower case).
 */
export type PlanWriter = { readonly kind: "admin" } | { readonly kind: "oidc"; readonly repository: string };

/** What a browser session may do: `admin` (opened with the admin token) or `read` (with a read-only token). */
export type SessionRole = "admin" | "read";

/**
 * A browser session as its cookie says it. `readTokenId` is the read-only token it was opened with
 * (role `read` only): the token's row is looked up on every request, so revoking it ends the session.
 */
export type Session = {
  readonly role: SessionRole;
  readonly readTokenId?: string | undefined;
  readonly expiresAt: Date;
};

/** A new browser session: the cookie's value, what it grants until when, and its lifetime (whole seconds). */
export type OpenedSession = { readonly value: string; readonly session: Session; readonly maxAgeS: number };

/** A per-worker bearer whose signature holds: the worker it names and the hash it is stored under. */
export type PresentedWorker = { readonly workerId: string; readonly tokenHash: string };

/**
 * Authentication of the control plane's callers. Every method throws {@link Unauthorized} on missing or
 * wrong credentials.
 */
export type AuthPort = {
  /**
   * Worker routes, before anything reads the body: refuses in process (no database) a credential that
   * cannot be valid: no header, another scheme, an empty token, or one that is neither a correctly
   * signed worker token nor the legacy shared token. A stranger thus gets the same 401 whatever body it
   * sends, and learns nothing about what the body should be. Whether a worker token is still stored is
   * checked later, by {@link AuthPort.authenticateWorker} or inside the operation itself.
   */
  screenWorker(authorization: string | undefined): Promise<void>;
  /** Worker routes: a per-worker bearer (looked up in `store`, so revocation is immediate) or the legacy shared token. */
  authenticateWorker(authorization: string | undefined, store: Store): Promise<Caller>;
  /**
   * The per-worker bearer in `authorization` when its signature holds, checked without the database;
   * `undefined` for anything else (no or another header, the legacy shared token, a forged token). Its
   * hash is not yet known to be stored: operations that check it in their own statement take it (see
   * `asPresentedWorker`), which saves a request its lookup. Optional: without it every worker request
   * goes through {@link AuthPort.authenticateWorker}.
   */
  presentedWorker?(authorization: string | undefined): Promise<PresentedWorker | undefined>;
  /** `POST /workers/register`: the bootstrap token only. */
  authenticateBootstrap(authorization: string | undefined): Promise<void>;
  /** Mints a bearer for a new worker; only `tokenHash` is stored. */
  issueWorkerToken(workerId: string): Promise<{ token: string; tokenHash: string }>;
  /**
   * The read API (`/api/v1/*`, `/openapi.json`): the admin token, or a live read-only token (looked up
   * in `store`, so revocation is immediate), or anyone when public reads are on. A worker's bearer and
   * the bootstrap token are not read tokens: a worker's machine runs agents, and what they print must
   * not unlock every plan's text and output (the plan summary route lets a live worker in besides).
   */
  authenticateReader(authorization: string | undefined, store: Store): Promise<void>;
  /**
   * `POST /api/v1/plans` (and an OIDC caller's issue lookup): the admin token, or, when configured, a
   * GitHub Actions OIDC token of an allowed repository. Never a worker's bearer, the bootstrap token
   * or a read-only token (403 `read_only_token`); public reads do not open it.
   * @throws {Unauthorized} (`plan_writer`; `oidc` for an OIDC token its verification refused)
   * @throws {Forbidden} (`read_only_token`, `repository_not_allowed`)
   */
  authenticatePlanWriter(authorization: string | undefined): Promise<PlanWriter>;
  /**
   * The operator actions (`POST /api/v1/plans/{plan}/tasks/{task}/reset` and `/release`,
   * `POST /api/v1/workers/pause` and `/resume`): the admin token only. A read-only token gets 403
   * `read_only_token`; public reads do not open them; anything else is 401 (`admin`).
   * @throws {Unauthorized} @throws {Forbidden}
   */
  authenticateAdmin(authorization: string | undefined): Promise<void>;
  /**
   * `POST /api/v1/session`: a browser session for the holder of the admin token (role `admin`) or of a
   * live read-only token (role `read`, bound to that token's id). Public reads do not open it; a
   * worker's bearer or the bootstrap token is refused like any stranger's.
   * @throws {Unauthorized} (`reader`) for any other credential.
   */
  openSession(authorization: string | undefined, store: Store): Promise<OpenedSession>;
  /**
   * An admin session for a caller proven some other way (a one-time sign-in code of `whilly run --ui`).
   */
  openAdminSession(): Promise<OpenedSession>;
  /**
   * A session cookie as a READ credential (the app accepts it on the read API's GET and HEAD requests
   * only, so a cross-site form can never make a browser act with it): its signature and expiry hold
   * and, for role `read`, its read token is still live (looked up in `store` on every request, so
   * revoking the token ends the session). With public reads, anyone, whatever the cookie.
   * @throws {Unauthorized} (`session`) for a forged or expired cookie or a revoked read token.
   */
  authenticateSession(value: string, store: Store): Promise<void>;
};
