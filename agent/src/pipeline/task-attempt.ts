import type { PlanPayload, TaskPayload } from "@whilly/core";
import { type AttemptProgress, InvalidInput, type JsonObject, WHILLY_FAILURE_REASONS } from "@whilly/core";
import { runChecks } from "../verify/run-checks.js";
import type { AgentAttempt, RunAttempt } from "../worker/types.js";
import { rememberInterrupted, takeInterrupted } from "./interrupted.js";
import { mergeTask } from "./merge.js";
import type { TaskAttemptOptions } from "./options.js";
import { openPlace, type Place } from "./place.js";
import { mayReuse, previousFailureOf } from "./previous-failure.js";
import { attemptOf, checksDetail, failed, messageOf, type Outcome, stopped } from "./result.js";
import { decide, stepFailure } from "./verdict.js";

/**
 * One attempt on a task as whilly runs it (docs/verification.md, docs/worktrees.md): a worktree (fresh
 * from the integration branch, or the kept one on a retry by this worker), the setup command in a new
 * worktree (`setup_failed`), the agent (resumed in a kept worktree), a commit of what it left, the
 * task's checks, then the merge into the integration branch with the plan's `verify` run again on the
 * merged tree (`merge_conflict`, `integration_failed`). A DONE task's worktree is removed; a failed
 * one's kept. With checks the checks decide; without, the agent's word (`unverified`). An unavailable,
 * rate-limited or stopped agent comes back as it is, unchecked. Phases go to `onActivity`
 * (`setup`, `agent`, `verify`, `merge`). The returned function never throws.
 * @throws InvalidInput (field `cwd`) when neither `workspaces` nor `cwd` is given.
 */
export function createTaskAttempt(options: TaskAttemptOptions): RunAttempt {
  if (options.workspaces === undefined && options.cwd === undefined) {
    throw new InvalidInput("cwd", "createTaskAttempt needs workspaces, or cwd to run tasks in place", {
      hint: "pass openWorkspaces(...) in a git repository, or the directory to run in as cwd",
    });
  }
  return async ({ task, plan, signal, onActivity }) => {
    let progress: AttemptProgress = {};
    const report = (update: AttemptProgress) => {
      progress = { ...progress, ...update };
      onActivity?.(progress);
    };
    const run: Run = { options, task, plan, signal, report, ...planned(options, task, plan) };
    report({ phase: options.workspaces === undefined ? "agent" : "setup" });
    const place = await placeOf(run);
    if (place.kind === "stopped") return stopped(undefined);
    if (place.kind === "failed") return attemptOf(undefined, failed(place.failure, place.detail));
    const resumable = place.prepared === undefined ? run.reuse : place.prepared.reused;
    const session = resumable
      ? run.interrupted
        ? run.interrupted.sessionId
        : run.previous?.session_id
      : undefined;

    report({ phase: "agent" });
    const agent = await options.runAgent({
      task,
      plan,
      cwd: place.dir,
      signal,
      resumeSessionId: session,
      previousFailure: run.previous,
      onActivity: (update) => report({ ...update, phase: "agent" }),
    });
    if (agent.unavailable || agent.limited || agent.aborted || signal.aborted) {
      if (options.workspaces) rememberInterrupted(options.workspaces, task.id, agent.sessionId ?? session);
      return agent;
    }
    return judge(run, place, agent);
  };
}

/** One attempt's inputs and what follows from them. */
type Run = {
  readonly options: TaskAttemptOptions;
  readonly task: TaskPayload;
  readonly plan: PlanPayload | null;
  readonly signal: AbortSignal;
  readonly report: (update: AttemptProgress) => void;
} & ReturnType<typeof planned>;

function planned(options: TaskAttemptOptions, task: TaskPayload, plan: PlanPayload | null) {
  const previous = previousFailureOf(task);
  const interrupted = options.workspaces && takeInterrupted(options.workspaces, task.id);
  return {
    previous,
    interrupted,
    reuse:
      interrupted !== undefined || mayReuse(previous, [options.workerId, ...(options.localWorkerIds ?? [])]),
    verify: options.verify ?? plan?.verify ?? [],
    setup: options.setup ?? plan?.setup ?? undefined,
    shell: {
      env: options.env,
      timeoutMs: options.verifyTimeoutMs,
      killGraceMs: options.killGraceMs,
      stateDir: options.stateDir,
      secrets: options.secrets,
    },
  };
}

async function placeOf(run: Run): Promise<Place> {
  const ws = run.options.workspaces;
  if (ws === undefined) return { kind: "ready", dir: run.options.cwd ?? "", prepared: undefined, detail: {} };
  return openPlace(ws, run.task, run.reuse, run.setup, run.shell, run.signal);
}

/** After the agent: commit what it left, run the checks, apply the rule, merge a passing task. */
async function judge(run: Run, place: Place & { kind: "ready" }, agent: AgentAttempt): Promise<AgentAttempt> {
  const { task, signal, shell } = run;
  const ws = run.options.workspaces;
  const judged = (extra: JsonObject, outcome: Outcome) =>
    attemptOf(agent, { ...outcome, extra: { ...place.detail, ...leftOut, ...extra, ...outcome.extra } });
  let leftOut: JsonObject = {};
  if (ws !== undefined) {
    try {
      const { tooLarge } = await ws.commitLeftovers(place.dir, task);
      // Too large to commit: the summary says so, since checks in the worktree still saw them.
      if (tooLarge.length > 0)
        leftOut = { left_out_too_large: tooLarge.map((f) => ({ path: f.path, bytes: f.bytes })) };
    } catch (error) {
      const { integrationFailed } = WHILLY_FAILURE_REASONS;
      return judged({}, failed(stepFailure(integrationFailed, "git commit", null, messageOf(error), agent)));
    }
  }

  run.report({ phase: "verify" });
  const knownManual = run.previous?.manual_steps;
  const steps = task.test_steps;
  const checks = await runChecks({
    ...shell,
    cwd: place.dir,
    steps,
    verify: run.verify,
    signal,
    knownManual,
  });
  if (checks.aborted || signal.aborted) return stopped(agent);
  const checked = checksDetail(checks);
  const verdict = decide(agent, checks);
  if (!verdict.ok) return judged(checked, failed(verdict.failure));
  const done: Outcome = { ok: true, verification: verdict.verification, extra: {} };
  if (ws === undefined) return judged(checked, done);

  run.report({ phase: "merge" });
  const merged = await mergeTask(ws, task, agent, run, shell, signal);
  if (signal.aborted) return stopped(agent);
  if (!merged.ok) return judged(checked, withManualSteps(merged.outcome, checks.manualSteps));
  // A worktree left behind costs disk only; the work is merged.
  await ws.remove(task).catch(() => undefined);
  return judged({ ...checked, integration_commit: merged.commit }, done);
}

/** Keeps the steps found manual in a failure after the checks, so the retry does not run them again. */
function withManualSteps(outcome: Outcome, manual: readonly string[]): Outcome {
  if (outcome.ok || manual.length === 0) return outcome;
  return { ...outcome, failure: { ...outcome.failure, manual_steps: manual } };
}
