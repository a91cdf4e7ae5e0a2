import { writeFile } from "node:fs/promises";
import {
  checkAgentBin,
  type GeneratedPlan,
  type GenerationAgent,
  generatePlan,
  generatePrd,
  generationAgentFromEnv,
} from "@whilly/agent";
import { EXIT, GenerationFailed, InvalidInput, type UntrustedPiece } from "@whilly/core";
import { answerFileOf, newPrdFile, type PrdFile, writePrdFile } from "../commands/init/prd-file.js";
import { generationProgress, step as stepOf } from "../commands/init/progress.js";
import { parseBudget } from "../commands/plan/budget-amount.js";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { ghRunner, ghTimeoutMs } from "../github/gh.js";
import { printError, printWarning } from "../io.js";
import { controlPlaneDestination, storeDestination } from "./destination.js";
import {
  type ForgeIssue,
  ISSUE_PIECE_BYTES,
  type IssueTarget,
  issuePieces,
  issueTarget,
  readIssue,
  refusal,
  refusalHint,
} from "./issue.js";
import { updateIssue } from "./issue-updates.js";
import { type IntakeReport, printReport } from "./report.js";

/** The flags of `whilly forge intake`, as yargs parsed them. */
export type IntakeArgs = {
  readonly ref: string;
  readonly label: string;
  readonly force: boolean;
  readonly budget?: string | undefined;
  readonly model?: string | undefined;
  /** `--agent`: the agent that writes the plan (one that answers); Claude Code when undefined. */
  readonly agent?: string | undefined;
  /** `--agent-cmd`: the `cmd` agent's command. */
  readonly agentCmd?: string | undefined;
  readonly outputDir: string;
  readonly labelFlip: boolean;
  readonly connect?: string | undefined;
  readonly json: boolean;
  /** Stop before the model: the checks and the issue only. */
  readonly dryRun?: boolean | undefined;
};

const PREFIX = "whilly forge";

/**
 * `whilly forge intake owner/repo/N` (docs/forge.md): checks the flags, the agent binary and the
 * destination (the store, or `--connect`'s control plane) for the issue's plan before gh or the model
 * runs; reads the issue and refuses a closed one or one without the trigger label unless `--force`;
 * writes the PRD, generates the plan, stores it in one transaction (only if no other intake did), and
 * only then labels the issue `whilly-in-progress` and comments on it once.
 * @returns the exit code: 0 (created, already there, or another intake won), 1 (refused, not found,
 *   generation failed), 130 (interrupted: nothing stored).
 * @throws {UsageError} for a bad argument (exit 2); ConfigurationError for a missing or logged-out gh.
 */
export async function runIntake(ctx: CliContext, args: IntakeArgs): Promise<number> {
  try {
    return await intake(ctx, args);
  } catch (error) {
    // Ctrl-C while gh or the store worked: what was killed says little; nothing was stored.
    if (ctx.io.interrupt?.aborted) return interrupted(ctx);
    throw error;
  }
}

async function intake(ctx: CliContext, args: IntakeArgs): Promise<number> {
  const io = ctx.io;
  const target = issueTarget(args.ref);
  const label = args.label.trim();
  if (label === "") throw new UsageError("--label is empty", { hint: "e.g. --label whilly-pending" });
  const budgetMicroUsd = args.budget === undefined ? undefined : budgetOf(args.budget);
  const agent = generationAgentFromEnv(io.env, {
    model: args.model,
    agent: args.agent,
    agentCmd: args.agentCmd,
    secrets: ctx.settings.secrets,
    cwd: io.cwd,
  });
  if (agent.adapter === undefined) checkAgentBin(agent.claudeBin, io.env, io.cwd);
  const prd = newPrdFile(io.cwd, args.outputDir, target.planId, true);

  const destination =
    args.connect === undefined
      ? storeDestination(await ctx.store())
      : controlPlaneDestination(args.connect, io.env, io.interrupt);
  step(ctx, `checking ${destination.name} for a plan of ${target.ref} before any gh or model call`);
  const found = await destination.findByIssue(target.ref);
  const base = { planId: target.planId, ref: target.ref, budgetMicroUsd };
  if (found !== undefined) {
    return done(ctx, args, { ...base, planId: found.id, outcome: "exists", tasksCount: found.tasksCount });
  }
  if (await destination.idTaken(target.planId)) {
    throw new UsageError(
      `plan '${target.planId}' already exists in ${destination.name} but was not made from ${target.ref}`,
      {
        hint: `see it with whilly plan show ${target.planId}; remove or rename it before taking the issue in`,
      },
    );
  }

  const gh = ghRunner({
    env: io.env,
    cwd: io.cwd,
    timeoutMs: ghTimeoutMs(io.env),
    secrets: ctx.settings.secrets,
    purpose: "whilly forge intake reads the issue and labels it with it",
    signal: io.interrupt,
  });
  step(ctx, `reading issue ${target.ref} with gh`);
  const issue = await readIssue(gh, target);
  const why = refusal(issue, target, label);
  if (why !== undefined && !args.force) {
    printError(io, `${why}; not taken in`, refusalHint(issue, label));
    return EXIT.failed;
  }
  if (why !== undefined) printWarning(io, `${why}; taken in anyway (--force)`);
  if (args.dryRun === true) {
    step(ctx, "dry run: no model call, nothing stored, the issue left as it is");
    return done(ctx, args, { ...base, outcome: "dry_run", tasksCount: 0 });
  }

  let generated: GeneratedPlan;
  try {
    generated = await generate(ctx, agent, target, issue, prd);
  } catch (error) {
    if (io.interrupt?.aborted) return interrupted(ctx);
    if (error instanceof GenerationFailed) return generationFailed(ctx, error, prd);
    throw error;
  }
  if (io.interrupt?.aborted) return interrupted(ctx);
  for (const warning of generated.warnings) printWarning(io, warning);

  const tasksCount = generated.plan.tasks.length;
  step(
    ctx,
    `storing plan '${target.planId}' (${tasksCount} tasks) in ${destination.name}, in one transaction`,
  );
  const created = await destination.create(generated.plan, generated.document, budgetMicroUsd);
  if (!created) {
    return done(ctx, args, { ...base, outcome: "lost_race", tasksCount });
  }
  const updates = await updateIssue(gh, target, issue, {
    plan: { planId: target.planId, tasksCount, budgetMicroUsd },
    label,
    flip: args.labelFlip,
  });
  for (const warning of updates.warnings) printWarning(io, warning);
  return done(ctx, args, {
    ...base,
    outcome: "created",
    tasksCount,
    prdFile: prd.shown,
    updates,
    costMicroUsd: generated.costMicroUsd,
  });
}

/** The PRD (written to its file), then the plan from the issue and the PRD. */
async function generate(
  ctx: CliContext,
  agent: GenerationAgent,
  target: IssueTarget,
  issue: ForgeIssue,
  prd: PrdFile,
): Promise<GeneratedPlan> {
  const io = ctx.io;
  const pieces = issuePieces(issue);
  const onProgress = generationProgress(io, agent.model, PREFIX);
  const written = await generatePrd({ agent, input: pieces, signal: io.interrupt, onProgress });
  if (io.interrupt?.aborted) throw new GenerationFailed("interrupted", "aborted", [], undefined);
  await writePrdFile(prd, written.markdown);
  step(ctx, `PRD saved at ${prd.shown}`);
  const input: UntrustedPiece[] = [
    ...pieces,
    { kind: "prd", text: written.markdown, maxBytes: ISSUE_PIECE_BYTES.prd },
  ];
  const plan = await generatePlan({
    agent,
    input,
    source: { kind: "github_issue", reference: target.ref, url: issue.url, title: issue.title.slice(0, 200) },
    planId: target.planId,
    fields: { github_issue_ref: target.ref, prd_file: prd.shown },
    signal: io.interrupt,
    onProgress,
  });
  return { ...plan, costMicroUsd: plan.costMicroUsd + written.costMicroUsd };
}

function done(ctx: CliContext, args: IntakeArgs, report: IntakeReport): number {
  printReport(ctx.io, report, args.json);
  return EXIT.ok;
}

function budgetOf(raw: string): number {
  try {
    return parseBudget(raw, "--budget");
  } catch (error) {
    if (error instanceof InvalidInput) throw new UsageError(error.message, { hint: error.hint });
    throw error;
  }
}

/** Exit 1: says what failed, keeps the PRD, and saves the model's last answer beside it. */
async function generationFailed(ctx: CliContext, error: GenerationFailed, prd: PrdFile): Promise<number> {
  printError(ctx.io, error.message, error.hint);
  if (error.answer !== undefined && error.answer.trim() !== "") {
    const file = answerFileOf(prd);
    await writeFile(file.path, error.answer.endsWith("\n") ? error.answer : `${error.answer}\n`).catch(
      () => undefined,
    );
    step(ctx, `the model's last answer is in ${file.shown}`);
  }
  step(ctx, "nothing was stored; the issue was not changed");
  return EXIT.failed;
}

function interrupted(ctx: CliContext): number {
  step(ctx, "interrupted; nothing was stored and the issue was not changed");
  return EXIT.interrupted;
}

function step(ctx: CliContext, text: string): void {
  stepOf(ctx.io, text, PREFIX);
}
