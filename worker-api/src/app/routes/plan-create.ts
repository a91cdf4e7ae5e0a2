import {
  type CreatePlanResponse,
  Forbidden,
  type ImportResult,
  InvalidInput,
  instructionWarnings,
  PlanInvalid,
  type PlanSpec,
  parseGithubIssueRef,
  parsePlanFile,
  parseUsd,
  testStepWarnings,
  Unauthorized,
} from "@whilly/core";
import type { Context, Handler } from "hono";
import type { PlanWriter } from "../../ports/index.js";
import type { AppDeps } from "../deps.js";

/** What parse problems are called in messages: the plan arrives as the request body. */
const SOURCE = "the plan in the request body";

/**
 * `POST /api/v1/plans`: stores a plan in the plan-file format (docs/plan-format.md) as
 * `whilly plan import` does. The credential is checked before the body is read; the body is parsed by
 * the plan-file parser (422 `invalid_input` naming the first bad field, every problem in `detail`). A
 * new plan answers 201 `created: true`; a plan already stored under the id, or made from the file's
 * GitHub issue, answers 200 `created: false` (tasks new to it added, stored ones kept); the issue's plan
 * under another id is 409 `plan_conflict`. `?budget_usd=` sets the budget of a plan it creates;
 * `?create_only=true` stores nothing when the plan is stored already (an intake that lost a race, 200
 * `created: false`). An OIDC caller may only store a plan of an issue of its own
 * repository (403 `issue_of_another_repository`), and never add to a stored plan made from something
 * else (409 `plan_conflict`).
 */
export function createPlanHandler(deps: AppDeps): Handler {
  return async (c) => {
    const writer = await deps.auth.authenticatePlanWriter(c.req.header("authorization"));
    const options = importOptions(c.req.query("budget_usd"), c.req.query("create_only"));
    const plan = parseBody(await c.req.text());
    if (writer.kind === "oidc") assertOwnIssue(writer.repository, plan.githubIssueRef);
    const result = await deps.withStore((store) =>
      store.importPlan(plan, { ...options, issuePlanOnly: writer.kind === "oidc" }),
    );
    if (result.inserted.length > 0 && !deps.coordinator?.listensToStore) {
      deps.coordinator?.notifyWork(plan.id);
    }
    deps.log?.("info", "plan.imported", {
      plan_id: plan.id,
      created: result.planCreated,
      inserted: result.inserted.length,
      github_issue_ref: plan.githubIssueRef ?? null,
      by: writer.kind === "oidc" ? `oidc:${writer.repository}` : "admin",
    });
    return c.json(createPlanPayload(plan, result), result.planCreated ? 201 : 200);
  };
}

/**
 * `GET /api/v1/plans?github_issue_ref=`: who may look an issue's plan up. A reader may (the admin token
 * or a read token); else an OIDC caller may, for an issue of its own repository. A refused OIDC token
 * answers with its own reason; any other credential with the reader's 401. The caller is
 * authenticated before the parameter is judged.
 * @returns the issue reference, canonical.
 * @throws {Unauthorized} @throws {Forbidden} @throws {InvalidInput} (422) for a bad reference.
 */
export async function authorizeIssueLookup(deps: AppDeps, c: Context, raw: string): Promise<string> {
  const authorization = c.req.header("authorization");
  try {
    await deps.withStore((store) => deps.auth.authenticateReader(authorization, store));
    return issueRefQuery(raw);
  } catch (readerError) {
    if (!(readerError instanceof Unauthorized)) throw readerError;
    let writer: PlanWriter;
    try {
      writer = await deps.auth.authenticatePlanWriter(authorization);
    } catch (writerError) {
      const fromOidc =
        (writerError instanceof Unauthorized && writerError.credential === "oidc") ||
        (writerError instanceof Forbidden && writerError.reason === "repository_not_allowed");
      throw fromOidc ? writerError : readerError;
    }
    const ref = issueRefQuery(raw);
    if (writer.kind === "oidc") assertOwnIssue(writer.repository, ref);
    return ref;
  }
}

/**
 * The `github_issue_ref` query parameter, canonical.
 * @throws {InvalidInput} (422) when it is not `owner/repo/N`.
 */
function issueRefQuery(raw: string): string {
  const parsed = parseGithubIssueRef(raw);
  if (parsed) return parsed.ref;
  throw new InvalidInput(
    "github_issue_ref",
    `github_issue_ref must name a GitHub issue as owner/repo/N, e.g. acme/widgets/42; got '${raw}'`,
  );
}

/**
 * The query's `budget_usd` (a USD amount, as the plan file writes money) and `create_only` (`true` or
 * `false`).
 * @throws {InvalidInput} (422) naming the parameter.
 */
function importOptions(
  budget: string | undefined,
  createOnly: string | undefined,
): { budgetMicroUsd?: number; createOnly?: boolean } {
  const budgetMicroUsd = budget === undefined ? undefined : parseUsd(budget);
  if (budget !== undefined && budgetMicroUsd === undefined) {
    throw new InvalidInput(
      "budget_usd",
      `budget_usd must be an amount in USD such as 5 or 12.50; got '${budget}'`,
    );
  }
  if (createOnly !== undefined && createOnly !== "true" && createOnly !== "false") {
    throw new InvalidInput("create_only", `create_only must be true or false; got '${createOnly}'`);
  }
  return {
    ...(budgetMicroUsd === undefined ? {} : { budgetMicroUsd }),
    ...(createOnly === "true" ? { createOnly: true } : {}),
  };
}

/** @throws {InvalidInput} naming the first bad field, with every problem the parser found. */
function parseBody(text: string): PlanSpec {
  try {
    return parsePlanFile(text, SOURCE);
  } catch (error) {
    if (!(error instanceof PlanInvalid)) throw error;
    const field = error.issues.find((issue) => issue.path !== "")?.path ?? "body";
    throw new InvalidInput(field, error.message, {
      hint: "fix the fields named; docs/plan-format.md describes every field",
      cause: error,
    });
  }
}

/** @throws {Forbidden} unless `ref` is an issue of `repository` (`owner/repo`, lower case). */
function assertOwnIssue(repository: string, ref: string | undefined): void {
  const issue = ref === undefined ? undefined : parseGithubIssueRef(ref);
  if (issue && `${issue.owner}/${issue.repo}` === repository) return;
  throw new Forbidden(
    ref === undefined
      ? `a workflow of '${repository}' may only create plans of its own issues; the plan has no github_issue_ref`
      : `a workflow of '${repository}' may only reach plans of its own issues, not of '${ref}'`,
    { reason: "issue_of_another_repository" },
  );
}

function createPlanPayload(plan: PlanSpec, result: ImportResult): CreatePlanResponse {
  return {
    created: result.planCreated,
    plan_id: plan.id,
    github_issue_ref: result.plan.githubIssueRef ?? null,
    task_count: plan.tasks.length,
    inserted: [...result.inserted],
    unchanged: [...result.unchanged],
    changed: [...result.changed],
    demoted_to_pending: [...result.demotedToPending],
    plan_changed: [...result.planChanged],
    warnings: [...instructionWarnings(plan.keptInstructions), ...testStepWarnings(plan.tasks)],
  };
}
