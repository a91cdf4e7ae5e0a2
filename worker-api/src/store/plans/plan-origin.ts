import { EVENT_TYPES, type JsonObject, originToJson, PlanConflict, type PlanSpec } from "@whilly/core";
import { plans } from "@whilly/schema";
import { eq } from "drizzle-orm";
import type { Db } from "../db.js";
import type { NewEvent } from "../events/insert-events.js";
import type { PlanRow } from "../rows.js";
import { jsonEqual } from "./same-task-spec.js";

/** The plan file's `github_issue_ref` and `origin` as the plan row stores them. */
export function originColumns(plan: PlanSpec): { githubIssueRef: string | null; origin: JsonObject | null } {
  return {
    githubIssueRef: plan.githubIssueRef ?? null,
    origin: plan.origin === undefined ? null : originToJson(plan.origin),
  };
}

/**
 * After an insert that stored nothing: when the file names a GitHub issue that another plan already
 * has, that plan is the answer, and a file under another id cannot take the issue. Under READ
 * COMMITTED this sees the plan a concurrent import just committed (the insert waited for it).
 * @throws {PlanConflict} when the issue belongs to a plan with another id.
 */
export async function assertIssueRefFree(tx: Db, plan: PlanSpec): Promise<void> {
  const ref = plan.githubIssueRef;
  if (ref === undefined) return;
  const [owner] = await tx.select({ id: plans.id }).from(plans).where(eq(plans.githubIssueRef, ref));
  if (owner && owner.id !== plan.id) throw new PlanConflict(plan.id, ref, owner.id);
}

/**
 * For a caller that may only store its issue's plan (`ImportOptions.issuePlanOnly`): the stored plan
 * under the file's id must have been made from the file's issue.
 * @throws {PlanConflict} otherwise.
 */
export function assertIssuePlan(row: PlanRow, plan: PlanSpec): void {
  if (plan.githubIssueRef !== undefined && row.githubIssueRef === plan.githubIssueRef) return;
  throw new PlanConflict(plan.id, plan.githubIssueRef ?? "", plan.id);
}

/**
 * `plan.created`, written with the rows of a plan made by an intake (a file that records its `origin`
 * or its issue): `{github_issue_ref, name, tasks_count, prd_file, origin}` as whilly 4.x's forge intake
 * wrote it, plus the origin. A plan file typed by hand gets none, as in 4.x (its history starts with
 * its tasks).
 */
export function planCreatedEvents(plan: PlanSpec): NewEvent[] {
  if (plan.githubIssueRef === undefined && plan.origin === undefined) return [];
  const prdFile = plan.extra.prd_file;
  return [
    {
      planId: plan.id,
      eventType: EVENT_TYPES.planCreated,
      payload: {
        github_issue_ref: plan.githubIssueRef ?? null,
        name: plan.name,
        tasks_count: plan.tasks.length,
        prd_file: typeof prdFile === "string" ? prdFile : null,
        origin: originColumns(plan).origin,
      },
    },
  ];
}

/** The file's `github_issue_ref` and `origin`, by their file names, where they differ from the row. */
export function originDifferences(row: PlanRow, plan: PlanSpec): string[] {
  const file = originColumns(plan);
  const differs: string[] = [];
  if (row.githubIssueRef !== file.githubIssueRef) differs.push("github_issue_ref");
  if (!jsonEqual(row.origin, file.origin)) differs.push("origin");
  return differs;
}
