import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import {
  checkAgentBin,
  type GeneratedPlan,
  type GenerationAgent,
  generatePlan,
  generatePrd,
  generationAgentFromEnv,
} from "@whilly/agent";
import {
  displayUsd,
  EXIT,
  GenerationFailed,
  type GenerationSource,
  InvalidInput,
  slugOfIdea,
  slugProblem,
  type UntrustedPiece,
} from "@whilly/core";
import type { Store } from "@whilly/worker-api";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { printError, printWarning } from "../../io.js";
import { parseBudget } from "../plan/budget-amount.js";
import {
  answerFileOf,
  newPrdFile,
  type PrdFile,
  prdTitle,
  readPrdFile,
  slugOfPrdFile,
  writePrdFile,
} from "./prd-file.js";
import { generationProgress, step } from "./progress.js";
import { prdInput, wizardPrompts } from "./wizard.js";

/** The flags of `whilly init`, as yargs parsed them. */
export type InitArgs = {
  readonly idea: readonly string[];
  readonly slug?: string | undefined;
  readonly headless: boolean;
  readonly interactive: boolean;
  readonly fromPrd?: string | undefined;
  readonly outputDir: string;
  readonly force: boolean;
  readonly model?: string | undefined;
  /** `--agent`: the agent that writes the plan (one that answers); Claude Code when undefined. */
  readonly agent?: string | undefined;
  /** `--agent-cmd`: the `cmd` agent's command. */
  readonly agentCmd?: string | undefined;
  readonly budget?: string | undefined;
};

/** The most of a PRD put into the plan prompt, bytes; more is cut with a mark. */
const PRD_PROMPT_BYTES = 64 * 1024;

/**
 * `whilly init` (docs/init.md): checks everything that needs no model first (the flags, the PRD path,
 * the agent binary, the store and that the plan id is free), then writes the PRD (from the wizard's
 * answers, or from the idea alone with `--headless`; skipped with `--from-prd`), generates the plan
 * and imports it in one transaction. Interrupted, it stores nothing (a PRD already written is kept).
 * @returns the exit code: 0, 1 when generation failed (the PRD kept), 130 when interrupted.
 * @throws {UsageError} for a bad flag, a PRD that exists, a plan id that is taken (exit 2).
 */
export async function runInit(ctx: CliContext, args: InitArgs): Promise<number> {
  const setup = await prepare(ctx, args);
  const { prd, given } = setup;
  try {
    return await generateAndImport(ctx, setup);
  } catch (error) {
    if (ctx.io.interrupt?.aborted) return interrupted(ctx, existingPrd(prd, given));
    if (error instanceof GenerationFailed) return generationFailed(ctx, error, prd, given);
    throw error;
  }
}

/** What `whilly init` settled before any model call. */
type InitSetup = {
  readonly idea: string;
  readonly slug: string;
  readonly budgetMicroUsd: number | undefined;
  /** The PRD of `--from-prd`, read. */
  readonly given: (PrdFile & { readonly text: string }) | undefined;
  /** The PRD used: the one given, or the one to write. */
  readonly prd: PrdFile;
  readonly interactive: boolean;
  readonly agent: GenerationAgent;
  readonly store: Store;
};

/** Every check that needs no model: flags, PRD path, agent binary, the store and the plan id. */
async function prepare(ctx: CliContext, args: InitArgs): Promise<InitSetup> {
  const io = ctx.io;
  const idea = args.idea.join(" ").trim();
  if (args.fromPrd === undefined && idea === "") {
    throw new UsageError("whilly init needs an idea, or --from-prd FILE", {
      hint: 'e.g. whilly init "a todo app with tags and due dates"',
    });
  }
  const slug = chooseSlug(args, idea);
  const budgetMicroUsd = args.budget === undefined ? undefined : budgetOf(args.budget);
  const given = args.fromPrd === undefined ? undefined : await readPrdFile(io.cwd, args.fromPrd);
  const prd = given ?? newPrdFile(io.cwd, args.outputDir, slug, args.force);
  const interactive = given === undefined && (args.interactive || (!args.headless && io.stdinIsTTY === true));
  if (interactive && io.ask === undefined) {
    throw new UsageError("the wizard needs a terminal to ask its questions", { hint: "pass --headless" });
  }
  const agent = generationAgentFromEnv(io.env, {
    model: args.model,
    agent: args.agent,
    agentCmd: args.agentCmd,
    secrets: ctx.settings.secrets,
    cwd: io.cwd,
  });
  if (agent.adapter === undefined) checkAgentBin(agent.claudeBin, io.env, io.cwd);
  step(io, `plan '${slug}': checking the store before any model call`);
  const store = await ctx.store();
  await assertPlanFree(store, slug);
  return { idea, slug, budgetMicroUsd, given, prd, interactive, agent, store };
}

/** The PRD (unless given), the plan, and its import. @returns the exit code. */
async function generateAndImport(ctx: CliContext, setup: InitSetup): Promise<number> {
  const { idea, slug, given, prd, agent } = setup;
  const io = ctx.io;
  let prdText = given?.text;
  let prdCost = 0;
  if (prdText === undefined) {
    const answers = setup.interactive ? await askWizard(ctx) : undefined;
    if (setup.interactive && answers === undefined) return interrupted(ctx, undefined);
    const written = await writePrd(ctx, agent, prd, prdInput(idea, answers));
    prdText = written.markdown;
    prdCost = written.costMicroUsd;
  }
  step(io, `generating the plan from ${prd.shown}`);
  const source: GenerationSource =
    given === undefined
      ? { kind: "idea", reference: prd.shown, title: firstLine(idea) }
      : { kind: "prd", reference: prd.shown, ...optionalTitle(prdTitle(prdText)) };
  const generated = await generatePlan({
    agent,
    input: [{ kind: "prd", text: prdText, maxBytes: PRD_PROMPT_BYTES }],
    source,
    planId: slug,
    fields: { prd_file: prd.shown },
    signal: io.interrupt,
    onProgress: generationProgress(io, agent.model),
  });
  if (io.interrupt?.aborted) return interrupted(ctx, existingPrd(prd, given));
  await importGenerated(ctx, setup.store, generated, setup.budgetMicroUsd);
  printDone(ctx, { slug, generated, budgetMicroUsd: setup.budgetMicroUsd, prdCost });
  return EXIT.ok;
}

/** `--slug`, else the idea's slug, else the PRD file name's. */
function chooseSlug(args: InitArgs, idea: string): string {
  if (args.slug !== undefined) {
    const problem = slugProblem(args.slug);
    if (problem !== undefined) throw new UsageError(`--slug ${problem}`, { hint: "e.g. --slug todo-app" });
    return args.slug;
  }
  return idea !== "" ? slugOfIdea(idea) : slugOfPrdFile(args.fromPrd ?? "");
}

function budgetOf(raw: string): number {
  try {
    return parseBudget(raw, "--budget");
  } catch (error) {
    if (error instanceof InvalidInput) throw new UsageError(error.message, { hint: error.hint });
    throw error;
  }
}

/** @throws {UsageError} when a plan with this id is stored already (exit 2): nothing is asked of the model. */
async function assertPlanFree(store: Store, slug: string): Promise<void> {
  if ((await store.getPlan(slug)) === undefined) return;
  throw new UsageError(`plan '${slug}' already exists in the store; nothing was generated`, {
    hint: `name the new plan with --slug (whilly plan list shows the stored ones), or see it with whilly plan show ${slug}`,
  });
}

async function askWizard(ctx: CliContext): Promise<string[] | undefined> {
  step(ctx.io, "a few questions for the PRD (one line each; an empty line skips one)");
  return ctx.io.ask?.(wizardPrompts(), ctx.io.interrupt);
}

async function writePrd(
  ctx: CliContext,
  agent: GenerationAgent,
  prd: PrdFile,
  input: readonly UntrustedPiece[],
): Promise<{ markdown: string; costMicroUsd: number }> {
  const written = await generatePrd({
    agent,
    input,
    signal: ctx.io.interrupt,
    onProgress: generationProgress(ctx.io, agent.model),
  });
  if (ctx.io.interrupt?.aborted) throw new GenerationFailed("interrupted", "aborted", [], undefined);
  await writePrdFile(prd, written.markdown);
  ctx.io.out.write(`✓ PRD saved at ${prd.shown}\n`);
  return written;
}

/** Imports the plan in one transaction, unless another process stored one with its id meanwhile. */
async function importGenerated(
  ctx: CliContext,
  store: Store,
  generated: GeneratedPlan,
  budgetMicroUsd: number | undefined,
): Promise<void> {
  const { plan } = generated;
  for (const warning of generated.warnings) printWarning(ctx.io, warning);
  // Checked before the model ran; checked again, since generation took minutes.
  await assertPlanFree(store, plan.id);
  step(ctx.io, `importing plan '${plan.id}' (${plan.tasks.length} tasks) in one transaction`);
  await store.importPlan(plan, { budgetMicroUsd });
}

function printDone(
  ctx: CliContext,
  done: {
    slug: string;
    generated: GeneratedPlan;
    budgetMicroUsd: number | undefined;
    prdCost: number;
  },
): void {
  const count = done.generated.plan.tasks.length;
  const budget = done.budgetMicroUsd === undefined ? "" : `, budget ${displayUsd(done.budgetMicroUsd)}`;
  step(
    ctx.io,
    `the model's answers cost ${displayUsd(done.generated.costMicroUsd + done.prdCost)} (plan: ${done.generated.tries} answer(s))`,
  );
  ctx.io.out.write(
    [
      `✓ Plan '${done.slug}' imported (${count} task${count === 1 ? "" : "s"}${budget})`,
      "Next steps:",
      `  whilly plan show ${done.slug}`,
      `  whilly run --plan ${done.slug}`,
      "",
    ].join("\n"),
  );
}

/** Exit 1: says what failed, keeps the PRD, and saves the model's last answer beside it. */
async function generationFailed(
  ctx: CliContext,
  error: GenerationFailed,
  prd: PrdFile,
  given: PrdFile | undefined,
): Promise<number> {
  printError(ctx.io, error.message, error.hint);
  const kept = existingPrd(prd, given);
  if (error.answer !== undefined && error.answer.trim() !== "" && kept !== undefined) {
    const file = answerFileOf(kept);
    await writeFile(file.path, error.answer.endsWith("\n") ? error.answer : `${error.answer}\n`);
    step(ctx.io, `the model's last answer is in ${file.shown}`);
  }
  if (kept !== undefined) step(ctx.io, `the PRD is kept at ${kept.shown}; nothing was stored`);
  else step(ctx.io, "nothing was written or stored");
  return EXIT.failed;
}

function interrupted(ctx: CliContext, kept: PrdFile | undefined): number {
  step(
    ctx.io,
    `interrupted; nothing was stored${kept === undefined ? "" : ` (the PRD is kept at ${kept.shown})`}`,
  );
  return EXIT.interrupted;
}

/** The PRD on disk: the one given, or the one at the PRD's path (written whole, or there before with --force). */
function existingPrd(prd: PrdFile, given: PrdFile | undefined): PrdFile | undefined {
  return given ?? (existsSync(prd.path) ? prd : undefined);
}

function firstLine(text: string): string {
  return (text.split("\n", 1)[0] ?? "").slice(0, 200);
}

function optionalTitle(title: string | undefined): { title?: string } {
  return title === undefined ? {} : { title };
}
