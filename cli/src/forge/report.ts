import { displayUsd, formatUsd } from "@whilly/core";
import type { Io } from "../io.js";
import type { IssueUpdates } from "./issue-updates.js";

/** What one intake did, for its last lines or `--json`. */
export type IntakeReport = {
  readonly planId: string;
  readonly ref: string;
  /**
   * `created`; `exists` (the issue had a plan: nothing done); `lost_race` (another intake stored it);
   * `dry_run` (the issue would be taken in).
   */
  readonly outcome: "created" | "exists" | "lost_race" | "dry_run";
  readonly tasksCount: number;
  readonly budgetMicroUsd: number | undefined;
  readonly prdFile?: string | undefined;
  readonly updates?: IssueUpdates | undefined;
  /** What the model's answers cost, µUSD. */
  readonly costMicroUsd?: number | undefined;
};

/** Prints the outcome on stdout: a line (and next steps) or, with `json`, one JSON object. */
export function printReport(io: Io, report: IntakeReport, json: boolean): void {
  if (json) {
    io.out.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
    return;
  }
  if (report.outcome === "exists") {
    io.out.write(`plan '${report.planId}' already exists for ${report.ref}; nothing to do\n`);
    return;
  }
  if (report.outcome === "dry_run") {
    io.out.write(`dry run: ${report.ref} would become plan '${report.planId}'; nothing was done\n`);
    return;
  }
  if (report.outcome === "lost_race") {
    io.out.write(`plan '${report.planId}' for ${report.ref}: another intake won the race; nothing to do\n`);
    return;
  }
  const count = `${report.tasksCount} task${report.tasksCount === 1 ? "" : "s"}`;
  const budget = report.budgetMicroUsd === undefined ? "" : `, budget ${displayUsd(report.budgetMicroUsd)}`;
  const cost =
    report.costMicroUsd === undefined ? "" : ` (the model's answers cost ${displayUsd(report.costMicroUsd)})`;
  const updates = report.updates;
  io.out.write(
    [
      `✓ Plan '${report.planId}' created from ${report.ref} (${count}${budget})${cost}`,
      ...(report.prdFile === undefined ? [] : [`  PRD: ${report.prdFile}`]),
      ...(updates?.flipped ? ["  issue labelled whilly-in-progress"] : []),
      ...(updates?.commented ? ["  commented on the issue"] : []),
      "Next steps:",
      `  whilly plan show ${report.planId}`,
      `  whilly run --plan ${report.planId}`,
      "",
    ].join("\n"),
  );
}

/** The `--json` form: snake_case, amounts in USD strings. */
export function reportJson(report: IntakeReport): Record<string, unknown> {
  return {
    plan_id: report.planId,
    github_issue_ref: report.ref,
    created: report.outcome === "created",
    outcome: report.outcome,
    tasks_count: report.tasksCount,
    budget_usd: report.budgetMicroUsd === undefined ? null : formatUsd(report.budgetMicroUsd),
    prd_file: report.prdFile ?? null,
    labels_made: [...(report.updates?.labelsMade ?? [])],
    label_flipped: report.updates?.flipped ?? false,
    commented: report.updates?.commented ?? false,
    warnings: [...(report.updates?.warnings ?? [])],
    cost_usd: report.costMicroUsd === undefined ? null : formatUsd(report.costMicroUsd),
  };
}
