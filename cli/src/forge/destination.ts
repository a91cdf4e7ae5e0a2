import {
  ConfigurationError,
  formatUsd,
  InvalidInput,
  type JsonObject,
  type PlanSpec,
  TransportError,
} from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import { connectTimeoutMs } from "../connect-timeout.js";

/** A plan already stored for the issue. */
export type FoundPlan = { readonly id: string; readonly tasksCount: number };

/** Where forge intake stores its plan: the local store, or a control plane (`--connect`). */
export type PlanDestination = {
  /** For messages: `the store`, `the control plane at URL`. */
  readonly name: string;
  /** The issue's plan, if one is stored; also proves the destination is reachable. */
  findByIssue(ref: string): Promise<FoundPlan | undefined>;
  /** Whether a plan with this id (made from something else) is stored; `false` when unknown. */
  idTaken(planId: string): Promise<boolean>;
  /**
   * Stores a new plan in one transaction (rows and `plan.created`); `created: false` when another
   * intake stored the issue's plan first (then nothing was written).
   */
  create(plan: PlanSpec, document: JsonObject, budgetMicroUsd: number | undefined): Promise<boolean>;
};

/** The local store: `createOnly`, so a lost race writes nothing. */
export function storeDestination(store: Store): PlanDestination {
  return {
    name: "the store",
    async findByIssue(ref) {
      const plan = await store.findPlanByIssueRef(ref);
      if (plan === undefined) return undefined;
      return { id: plan.id, tasksCount: (await store.listTasks(plan.id)).length };
    },
    async idTaken(planId) {
      return (await store.getPlan(planId)) !== undefined;
    },
    async create(plan, _document, budgetMicroUsd) {
      const result = await store.importPlan(plan, { budgetMicroUsd, createOnly: true });
      return result.planCreated;
    },
  };
}

/** How long one request to the control plane may take (ms) unless `WHILLY_CONNECT_TIMEOUT` says. */
/**
 * A control plane's `GET /api/v1/plans?github_issue_ref=` and `POST /api/v1/plans`, with the admin
 * token (`WHILLY_ADMIN_TOKEN`) or a GitHub Actions OIDC token (`WHILLY_OIDC_TOKEN`, first when both are set).
 * @throws {ConfigurationError} when neither token is set, or `WHILLY_CONNECT_TIMEOUT` is bad.
 */
export function controlPlaneDestination(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): PlanDestination {
  // An OIDC token is set for this one purpose (the Action); an admin token may be set for others.
  const token = env.WHILLY_OIDC_TOKEN?.trim() || env.WHILLY_ADMIN_TOKEN?.trim();
  if (!token) {
    throw new ConfigurationError(
      "--connect needs a credential, WHILLY_OIDC_TOKEN or WHILLY_ADMIN_TOKEN, and neither is set",
      {
        hint: "set WHILLY_ADMIN_TOKEN to the server's admin token, or WHILLY_OIDC_TOKEN to a GitHub Actions OIDC token",
      },
    );
  }
  const timeoutMs = connectTimeoutMs(env);
  const base = url.replace(/\/+$/, "");
  const call = async (
    method: string,
    path: string,
    body?: string,
  ): Promise<{ status: number; json: unknown }> => {
    let response: Response;
    try {
      const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.any(signals),
      });
    } catch (cause) {
      throw new ConfigurationError(`the control plane at ${base} cannot be reached (${reason(cause)})`, {
        hint: "check --connect URL and that whilly server runs there; WHILLY_CONNECT_TIMEOUT gives it longer",
        cause,
      });
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.status >= 400) throw refused(base, method, path, response.status, json, text);
    return { status: response.status, json };
  };
  return {
    name: `the control plane at ${base}`,
    async findByIssue(ref) {
      const { json } = await call("GET", `/api/v1/plans?github_issue_ref=${encodeURIComponent(ref)}`);
      const plans = (json as { plans?: { id: string; task_count: number }[] } | undefined)?.plans ?? [];
      const plan = plans[0];
      return plan === undefined ? undefined : { id: plan.id, tasksCount: plan.task_count };
    },
    async idTaken() {
      // An OIDC token may read only its issue's plan; the route answers for a taken id itself (409).
      return false;
    },
    async create(_plan, document, budgetMicroUsd) {
      const budget = budgetMicroUsd === undefined ? "" : `&budget_usd=${formatUsd(budgetMicroUsd)}`;
      const { json } = await call(
        "POST",
        `/api/v1/plans?create_only=true${budget}`,
        JSON.stringify(document),
      );
      return (json as { created?: boolean } | undefined)?.created === true;
    },
  };
}

/** The error for a refused request: the server's own words, and what to do about them. */
function refused(
  base: string,
  method: string,
  path: string,
  status: number,
  json: unknown,
  text: string,
): Error {
  const envelope = json as { error_code?: string; detail?: string } | undefined;
  const said = envelope?.detail ?? text.slice(0, 300);
  const what = `${method} ${path.split("?")[0]} at ${base} answered ${status}${envelope?.error_code ? ` ${envelope.error_code}` : ""}: ${said}`;
  if (status === 401 || status === 403) {
    return new ConfigurationError(what, {
      hint: "check WHILLY_ADMIN_TOKEN (the server's admin token) or the OIDC token's repository and audience (WHILLY_OIDC_* on the server)",
    });
  }
  if (status === 422)
    return new InvalidInput("plan", what, { hint: "the generated plan was refused; run again" });
  return new TransportError(what, status, {
    retryable: status >= 500,
    hint: "fix what the server says, then run again",
  });
}

function reason(cause: unknown): string {
  const error = cause as { name?: string; message?: string; cause?: { code?: string } };
  if (error?.name === "TimeoutError") return "no answer in time";
  return error?.cause?.code ?? error?.message ?? String(cause);
}
