import type { TaskStatus } from "./task-status.js";

/**
 * Stable machine-readable error codes. The HTTP layer maps each to a status and to protocol v1's
 * envelope `{error_code, detail, task_id}`; the CLI maps them to exit codes.
 */
export type WhillyErrorCode =
  | "plan_invalid"
  | "plan_not_found"
  | "plan_conflict"
  | "task_not_found"
  | "version_conflict"
  | "not_owner"
  | "invalid_input"
  | "configuration"
  | "store_locked"
  | "store_unavailable"
  | "unauthorized"
  | "forbidden"
  | "agent_failed"
  | "transport";

/** The root of every error whilly throws on purpose. Anything else is a bug. */
export abstract class WhillyError extends Error {
  abstract readonly code: WhillyErrorCode;
  /** A next step for a person, printed as `hint:` by the CLI. */
  readonly hint: string | undefined;
  /** True when trying the same call again may succeed. */
  readonly retryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown; hint?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options?.hint;
  }
}

/** One problem found in a plan file: where (`path`, e.g. `tasks[2].priority`) and what. */
export type PlanIssue = { readonly path: string; readonly message: string; readonly taskId?: string };

/** A plan file or plan payload that cannot be imported; `issues` lists every problem found. */
export class PlanInvalid extends WhillyError {
  readonly code = "plan_invalid";
  constructor(
    readonly source: string,
    readonly issues: readonly PlanIssue[],
    options?: { hint?: string },
  ) {
    super(`${source}: ${issues.map((i) => i.message).join("; ")}`, options);
  }
}

/** No plan with this id is stored. */
export class PlanNotFound extends WhillyError {
  readonly code = "plan_not_found";
  constructor(readonly planId: string) {
    super(`plan '${planId}' not found`, {
      hint: "check the id matches the plan_id you imported (whilly plan list shows them)",
    });
  }
}

/**
 * A plan file names a GitHub issue that another plan was already made from (at most one plan per
 * issue): `existingPlanId` has `githubIssueRef`, the file's plan is `planId`. Or, for a caller that may
 * only touch its issue's plan, the stored plan `planId` (= `existingPlanId`) was not made from that
 * issue. HTTP 409.
 */
export class PlanConflict extends WhillyError {
  readonly code = "plan_conflict";
  constructor(
    readonly planId: string,
    readonly githubIssueRef: string,
    readonly existingPlanId: string,
  ) {
    super(
      planId === existingPlanId
        ? `plan '${planId}' is already stored and was not made from github_issue_ref '${githubIssueRef}', so it cannot be this issue's plan`
        : `github_issue_ref '${githubIssueRef}' already belongs to plan '${existingPlanId}', so plan '${planId}' cannot have it`,
      {
        hint:
          planId === existingPlanId
            ? "give the issue's plan another plan_id"
            : `import the plan with "plan_id": "${existingPlanId}" to add to it, or remove the stored plan first (whilly plan reset ${existingPlanId} --hard --yes)`,
      },
    );
  }
}

/** No task with this id in this plan (or, without a plan, among the worker's claims). */
export class TaskNotFound extends WhillyError {
  readonly code = "task_not_found";
  constructor(
    readonly taskId: string,
    readonly planId?: string,
  ) {
    super(
      planId === undefined ? `task '${taskId}' not found` : `task '${taskId}' not found in plan '${planId}'`,
    );
  }
}

/**
 * The task moved on since the caller read it: another version, or a status the transition may not
 * leave. `actualVersion` and `actualStatus` are `undefined` when the row is gone.
 */
export class VersionConflict extends WhillyError {
  readonly code = "version_conflict";
  constructor(
    readonly taskId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number | undefined,
    readonly actualStatus: TaskStatus | undefined,
    readonly planId?: string,
  ) {
    super(describeConflict(taskId, expectedVersion, actualVersion, actualStatus));
  }
}

function describeConflict(
  taskId: string,
  expected: number,
  actualVersion: number | undefined,
  actualStatus: TaskStatus | undefined,
): string {
  if (actualVersion === undefined) return `task '${taskId}' not found`;
  if (actualVersion !== expected) return `task '${taskId}' is at version ${actualVersion}, not ${expected}`;
  return `task '${taskId}' is ${actualStatus}, which this transition may not leave`;
}

/** The task is claimed by another worker (or by none), so this worker may not finish or release it. */
export class NotOwner extends WhillyError {
  readonly code = "not_owner";
  constructor(
    readonly taskId: string,
    readonly workerId: string,
    readonly ownerId: string | undefined,
    readonly version: number,
    readonly status: TaskStatus,
  ) {
    super(
      ownerId === undefined
        ? `task '${taskId}' is not claimed; worker '${workerId}' holds no lease on it`
        : `task '${taskId}' is claimed by worker '${ownerId}', not '${workerId}'`,
    );
  }
}

/** A caller passed a value that breaks a rule; `field` names it. */
export class InvalidInput extends WhillyError {
  readonly code = "invalid_input";
  constructor(
    readonly field: string,
    message: string,
    options?: { hint?: string; cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Settings or environment that make the command impossible (exit 2). */
export class ConfigurationError extends WhillyError {
  readonly code = "configuration";
}

/**
 * The agent cannot run on this machine (not logged in, credentials refused, not installed): a fault of
 * the machine, not of the task, so the runner hands the task back with its attempt refunded and stops
 * (exit 2). `hint` says what to fix.
 */
export class AgentUnavailable extends ConfigurationError {}

/** Who holds an embedded store's lock, as its lock file says. */
export type StoreLockHolder = {
  readonly pid: number;
  readonly hostname: string;
  /** When it took the lock (ISO 8601), as it wrote it. */
  readonly startedAt: string | undefined;
  /** True when the holder runs on another host, where whilly cannot check whether it still lives. */
  readonly otherHost: boolean;
  /** The whilly command holding it (`run`, `dashboard`), when the lock names one. */
  readonly command?: string | undefined;
};

/**
 * The embedded store's data directory is owned by another process: `lockPath` names the lock file and
 * `holder` who holds it (`undefined` when the file names no owner). The hint says how to go on,
 * including deleting the lock file when its holder is gone but cannot be proven gone.
 */
export class StoreLocked extends WhillyError {
  readonly code = "store_locked";
  /** The holder's pid, when the lock file names one. */
  readonly ownerPid: number | undefined;
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: StoreLockHolder | undefined,
  ) {
    super(describeLock(dataDir, lockPath, holder), { hint: lockHint(lockPath, holder) });
    this.ownerPid = holder?.pid;
  }
}

function describeLock(dataDir: string, lockPath: string, holder: StoreLockHolder | undefined): string {
  if (holder === undefined) {
    return `the embedded store at ${dataDir} is locked by ${lockPath}, which names no owner`;
  }
  const where = ` on host '${holder.hostname}'${holder.otherHost ? "" : " (this one)"}`;
  const since = holder.startedAt ? `, since ${holder.startedAt}` : "";
  const unknown = holder.otherHost ? "; this host cannot tell whether it still runs" : "";
  const command = holder.command ? `\`whilly ${holder.command}\`, ` : "";
  return `the embedded store at ${dataDir} is in use by another whilly process (${command}pid ${holder.pid}${where}${since}; lock file ${lockPath})${unknown}`;
}

function lockHint(lockPath: string, holder: StoreLockHolder | undefined): string {
  const share = "set WHILLY_DATABASE_URL to share a Postgres server between processes";
  if (holder === undefined) return `if no whilly process uses this store, delete ${lockPath}; or ${share}`;
  if (holder.otherHost) {
    return `if no whilly process runs on '${holder.hostname}' any more (a replaced container, say), delete ${lockPath} and run again; else wait for it to finish, or ${share}`;
  }
  return `wait for it to finish (or stop it: kill ${holder.pid}), or ${share}`;
}

/** The database cannot be reached or refused the connection. */
export class StoreUnavailable extends WhillyError {
  readonly code = "store_unavailable";
  override readonly retryable = true;
}

/** The HTTP transport failed (network error, 5xx, unparsable reply). */
export class TransportError extends WhillyError {
  readonly code = "transport";
  constructor(
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown; retryable?: boolean; hint?: string },
  ) {
    super(message, options);
    this.retryable = options?.retryable ?? true;
  }
  override readonly retryable: boolean;
}

/**
 * Which secret a 401 is about (the HTTP layer turns it into the envelope's `error_code`): a worker's bearer, the bootstrap token, a read API token, the token of
 * a plan-creating caller (the admin token or a GitHub Actions OIDC token), an OIDC token that its
 * verification refused (signature, issuer, audience, expiry), the admin token an operator action
 * takes, a browser's session cookie (expired, forged, or its read token revoked), or a one-time
 * sign-in code of `whilly run --ui`.
 */
export type Credential =
  | "worker_bearer"
  | "bootstrap"
  | "reader"
  | "plan_writer"
  | "oidc"
  | "admin"
  | "session"
  | "sign_in_code";

/** Missing, malformed, unknown or revoked credentials (HTTP 401). */
export class Unauthorized extends WhillyError {
  readonly code = "unauthorized";
  /** The credential that was missing or wrong; a worker's bearer unless said otherwise. */
  readonly credential: Credential;
  constructor(message: string, options?: { credential?: Credential; hint?: string; cause?: unknown }) {
    super(message, options);
    this.credential = options?.credential ?? "worker_bearer";
  }
}

/**
 * Why valid credentials may not do something: a worker token acting for another worker, a read-only
 * token asked to write, an OIDC token of a repository the control plane does not allow, or of a
 * repository other than the issue's, or a worker reporting about a task it never ran.
 */
export type ForbiddenReason =
  | "worker_id_mismatch"
  | "read_only_token"
  | "repository_not_allowed"
  | "issue_of_another_repository"
  | "worker_token"
  | "not_task_worker";

/** Valid credentials that may not do this (HTTP 403); `reason` is the envelope's `error_code`. */
export class Forbidden extends WhillyError {
  readonly code = "forbidden";
  readonly reason: ForbiddenReason;
  constructor(message: string, options?: { reason?: ForbiddenReason; hint?: string; cause?: unknown }) {
    super(message, options);
    this.reason = options?.reason ?? "worker_id_mismatch";
  }
}
