import { type JsonObject, type TaskWork, WHILLY_FAILURE_REASONS } from "@whilly/core";
import { type ChecksResult, runChecks } from "../verify/run-checks.js";
import { runShellStep } from "../verify/shell-step.js";
import type { AgentAttempt } from "../worker/types.js";
import { WorkspaceUnavailable } from "../workspace/faults.js";
import type { IntegrationStepFailure } from "../workspace/integrate.js";
import type { TaskWorkspaces, WorkspaceTask } from "../workspace/types.js";
import type { ShellSettings } from "./place.js";
import { failed, messageOf, type Outcome } from "./result.js";
import { stepFailure } from "./verdict.js";

/**
 * What delivering a checked task's work came to: the detail fields it adds (the new integration tip,
 * where it was pushed), a failed outcome, or the machine's fault.
 */
export type DeliveryOutcome =
  | { readonly ok: true; readonly detail: JsonObject }
  | { readonly ok: false; readonly outcome: Outcome }
  | { readonly ok: false; readonly fault: { readonly message: string; readonly hint: string } };

/**
 * Delivers the task's work as the workspaces do it: merged into the integration branch, with the plan's
 * `verify` on the merged tree and `setup` in a newly made integration worktree (`merge_conflict` with
 * the files, or `integration_failed` with the step, when it did not go in), or pushed (a push that
 * fails is the machine's fault).
 */
export async function deliverTask(
  ws: TaskWorkspaces,
  task: WorkspaceTask,
  work: TaskWork,
  agent: AgentAttempt,
  plan: { readonly verify: readonly string[]; readonly setup: string | undefined },
  shell: ShellSettings,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const { mergeConflict, integrationFailed } = WHILLY_FAILURE_REASONS;
  const { verify, setup } = plan;
  const check = async (cwd: string) =>
    integrationStep(await runChecks({ ...shell, cwd, steps: [], verify, signal }));
  const prepare = async (cwd: string) => {
    const command = setup ?? "";
    const run = await runShellStep({ ...shell, command, cwd, signal });
    return run.exitCode === 0
      ? undefined
      : { step: command, exit_code: run.exitCode, output_tail: run.outputTail };
  };
  const { branch } = work;
  try {
    const delivered = await ws.delivery.deliver(task, work, {
      check: verify.length > 0 ? check : undefined,
      setup: setup ? prepare : undefined,
      signal,
    });
    if (delivered.ok) return { ok: true, detail: delivered.detail };
    if (delivered.reason === "merge_conflict") {
      const tail = `conflicting files:\n${delivered.files.join("\n")}`;
      const failure = stepFailure(mergeConflict, `git merge ${branch}`, 1, tail, agent);
      const extra: JsonObject = { conflict_files: [...delivered.files] };
      return { ok: false, outcome: failed(failure, extra) };
    }
    const { step, exit_code, output_tail } = delivered;
    const failure = stepFailure(integrationFailed, step, exit_code, output_tail, agent);
    return { ok: false, outcome: failed(failure) };
  } catch (error) {
    if (error instanceof WorkspaceUnavailable)
      return { ok: false, fault: { message: error.message, hint: error.hint ?? "" } };
    const failure = stepFailure(integrationFailed, `git merge ${branch}`, null, messageOf(error), agent);
    return { ok: false, outcome: failed(failure) };
  }
}

function integrationStep(checks: ChecksResult): IntegrationStepFailure | undefined {
  if (checks.aborted)
    return { step: "verify", exit_code: null, output_tail: "stopped by the worker's shutdown" };
  if (checks.failing === undefined) return undefined;
  const { step, exit_code, output_tail } = checks.failing;
  return { step, exit_code, output_tail };
}
