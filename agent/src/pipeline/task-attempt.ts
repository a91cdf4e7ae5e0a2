import type { DependencyWork, PlanPayload, TaskPayload } from "@whilly/core";
import {
  type AttemptProgress,
  InvalidInput,
  type JsonObject,
  type TaskWork,
  WHILLY_FAILURE_REASONS,
} from "@whilly/core";
import { runChecks } from "../verify/run-checks.js";
import type { AgentAttempt, RunAttempt } from "../worker/types.js";
import { deliverTask } from "./deliver.js";
import { rememberInterrupted, takeInterrupted } from "./interrupted.js";
import type { TaskAttemptOptions } from "./options.js";
import { openPlace, type Place } from "./place.js";
import { mayReuse, previousFailureOf } from "./previous-failure.js";
import {
  attemptOf,
  checksDetail,
  failed,
  faulted,
  leaseLost,
  messageOf,
  type Outcome,
  stopped,
} from "./result.js";
import { decide, stepFailure } from "./verdict.js";

/**
 * One attempt on a task as whilly runs it (docs/verification.md, docs/worktrees.md, docs/worker.md): a
 * worktree (fresh from the workspaces' base with the claim's dependency work merged in, `merge_conflict`
 * when it conflicts; or the kept one on a retry by this worker), the setup command in a new worktree
 * (`setup_failed`), the agent (resumed in a kept worktree), a commit of what it left, the task's checks,
 * then the delivery: the merge into the integration branch with the plan's `verify` run again on the
 * merged tree (`merge_conflict`, `integration_failed`), or a push. A DONE task's worktree is removed, its
 * branch and commit reported as `work`; a failed one's kept. With checks the checks decide; without, the
 * agent's word (`unverified`). An unavailable, rate-limited or stopped agent comes back as it is,
 * unchecked; git that cannot fetch or push comes back as a `fault`. Phases go to `onActivity` (`setup`,
 * `agent`, `verify`, then the delivery's: `merge`, `push`). The returned function never throws.
 * @throws InvalidInput (field `cwd`) when neither `workspaces` nor `cwd` is given.
 */
export function createTaskAttempt(options: TaskAttemptOptions): RunAttempt {
  if (options.workspaces === undefined && options.cwd === undefined) {
    throw new InvalidInput("cwd", "createTaskAttempt needs workspaces, or cwd to run tasks in place", {
      hint: "pass openWorkspaces(...) in a git repository, or the directory to run in as cwd",
    });
  }
  return async ({ task, plan, signal, dependencyWork = [], onActivity, holdsLease }) => {
    let progress: AttemptProgress = {};
    const report = (update: AttemptProgress) => {
      progress = { ...progress, ...update };
      onActivity?.(progress);
    };
    const run: Run = {
      options,
      task,
      plan,
      signal,
      report,
      dependencyWork,
      holdsLease,
      ...planned(options, task, plan),
    };
    report({ phase: options.workspaces === undefined ? "agent" : "setup" });
    const place = await placeOf(run);
    if (place.kind === "stopped") return stopped(undefined);
    if (place.kind === "fault") return faulted(undefined, { message: place.message, hint: place.hint }, {});
    if (place.kind === "failed") return attemptOf(undefined, failed(place.failure, place.detail));
    const session = sessionOf(run, place);
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

/** The agent session to resume: the kept worktree's, when it is kept. */
function sessionOf(run: Run, place: Place & { kind: "ready" }): string | undefined {
  const resumable = place.prepared === undefined ? run.reuse : place.prepared.reused;
  if (!resumable) return undefined;
  return run.interrupted ? run.interrupted.sessionId : run.previous?.session_id;
}

/** One attempt's inputs and what follows from them. */
type Run = {
  readonly options: TaskAttemptOptions;
  readonly task: TaskPayload;
  readonly plan: PlanPayload | null;
  readonly signal: AbortSignal;
  readonly report: (update: AttemptProgress) => void;
  readonly dependencyWork: readonly DependencyWork[];
  readonly holdsLease: (() => Promise<boolean>) | undefined;
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
  const where = { reuse: run.reuse, dependencyWork: run.dependencyWork };
  return openPlace(ws, run.task, where, run.setup, run.shell, run.signal);
}

/** After the agent: commit what it left, run the checks, apply the rule, deliver a passing task. */
async function judge(run: Run, place: Place & { kind: "ready" }, agent: AgentAttempt): Promise<AgentAttempt> {
  const { task, signal, shell } = run;
  const ws = run.options.workspaces;
  const judged = (extra: JsonObject, outcome: Outcome) =>
    attemptOf(agent, { ...outcome, extra: { ...place.detail, ...leftOut, ...extra, ...outcome.extra } });
  let leftOut: JsonObject = {};
  let work: TaskWork | undefined;
  if (ws !== undefined) {
    try {
      const committed = await ws.commitLeftovers(place.dir, task);
      const { tooLarge } = committed;
      work = committed.work;
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
  if (ws === undefined || work === undefined) return judged(checked, done);

  if (ws.delivery.phase !== undefined) {
    const unheld = await unlessHeld(run, agent, { ...place.detail, ...checked });
    if (unheld !== undefined) return unheld;
    run.report({ phase: ws.delivery.phase });
  }
  const delivered = await deliverTask(ws, task, work, agent, run, shell, signal);
  if (signal.aborted) return stopped(agent);
  if (!delivered.ok && "fault" in delivered) {
    // The work is committed in the kept worktree: this machine's next attempt continues from it.
    rememberInterrupted(ws, task.id, agent.sessionId);
    return faulted(agent, delivered.fault, { ...place.detail, ...checked });
  }
  if (!delivered.ok) return judged(checked, withManualSteps(delivered.outcome, checks.manualSteps));
  // A worktree left behind costs disk only; the work is delivered and its branch kept.
  await ws.remove(task).catch(() => undefined);
  return { ...judged({ ...checked, ...delivered.detail }, done), work };
}

/**
 * Asks the control plane whether the task is still this worker's before its work goes out: a worker whose
 * lease ran out while the agent worked (the task went to another) must not push over the other's work.
 * `undefined` when it is (or nobody can say); else the attempt to return, nothing published.
 */
async function unlessHeld(
  run: Run,
  agent: AgentAttempt,
  detail: JsonObject,
): Promise<AgentAttempt | undefined> {
  const { holdsLease, task } = run;
  if (holdsLease === undefined) return undefined;
  try {
    if (await holdsLease()) return undefined;
  } catch (error) {
    if (run.signal.aborted) return stopped(agent);
    const message = `cannot ask the control plane whether ${task.id} is still this worker's, so its work was not published: ${messageOf(error)}`;
    return faulted(
      agent,
      { message, hint: "check that the control plane answers from this machine" },
      detail,
    );
  }
  const message = `${task.id} was taken from this worker while it ran (an operator released it, or its lease ran out and another worker took it): its work was not published`;
  return leaseLost(agent, message, detail);
}

/** Keeps the steps found manual in a failure after the checks, so the retry does not run them again. */
function withManualSteps(outcome: Outcome, manual: readonly string[]): Outcome {
  if (outcome.ok || manual.length === 0) return outcome;
  return { ...outcome, failure: { ...outcome.failure, manual_steps: manual } };
}
