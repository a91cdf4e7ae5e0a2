import { type JsonObject, WHILLY_FAILURE_REASONS } from "@whilly/core";
import { type ChecksResult, runChecks } from "../verify/run-checks.js";
import { runShellStep } from "../verify/shell-step.js";
import type { AgentAttempt } from "../worker/types.js";
import type { IntegrationStepFailure } from "../workspace/integrate.js";
import type { Workspaces, WorkspaceTask } from "../workspace/workspaces.js";
import type { ShellSettings } from "./place.js";
import { failed, messageOf, type Outcome } from "./result.js";
import { stepFailure } from "./verdict.js";

/** What merging a checked task's branch came to: the new integration tip, or a failed outcome. */
export type MergeOutcome =
  | { readonly ok: true; readonly commit: string }
  | { readonly ok: false; readonly outcome: Outcome };

/**
 * Merges the task's branch into the integration branch, with the plan's `verify` on the merged tree
 * and `setup` in a newly made integration worktree: `merge_conflict` (with the files) or
 * `integration_failed` (with the step) when it did not go in.
 */
export async function mergeTask(
  ws: Workspaces,
  task: WorkspaceTask,
  agent: AgentAttempt,
  plan: { readonly verify: readonly string[]; readonly setup: string | undefined },
  shell: ShellSettings,
  signal: AbortSignal,
): Promise<MergeOutcome> {
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
  const branch = ws.keptPaths(task).branch;
  try {
    const merged = await ws.integrate(task, {
      check: verify.length > 0 ? check : undefined,
      setup: setup ? prepare : undefined,
    });
    if (merged.ok) return { ok: true, commit: merged.commit };
    if (merged.reason === "merge_conflict") {
      const tail = `conflicting files:\n${merged.files.join("\n")}`;
      const failure = stepFailure(mergeConflict, `git merge ${branch}`, 1, tail, agent);
      const extra: JsonObject = { conflict_files: [...merged.files] };
      return { ok: false, outcome: failed(failure, extra) };
    }
    const failure = stepFailure(integrationFailed, merged.step, merged.exit_code, merged.output_tail, agent);
    return { ok: false, outcome: failed(failure) };
  } catch (error) {
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
