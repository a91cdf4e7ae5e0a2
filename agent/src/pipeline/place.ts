import { type DependencyWork, type JsonObject, WHILLY_FAILURE_REASONS } from "@whilly/core";
import { runShellStep, type ShellStepOptions } from "../verify/shell-step.js";
import { DependencyConflict, WorkspaceUnavailable } from "../workspace/faults.js";
import type { PreparedWorkspace, TaskWorkspaces, WorkspaceTask } from "../workspace/types.js";
import { messageOf } from "./result.js";
import { type ReportedFailure, stepFailure } from "./verdict.js";

/** Settings every shell step of an attempt shares. */
export type ShellSettings = Omit<ShellStepOptions, "command" | "cwd" | "signal">;

/** Where the agent works, or why it cannot. */
export type Place =
  | {
      readonly kind: "ready";
      readonly dir: string;
      /** The worktree; `undefined` in place. */
      readonly prepared: PreparedWorkspace | undefined;
      /** The detail fields naming the worktree. */
      readonly detail: JsonObject;
    }
  | { readonly kind: "failed"; readonly failure: ReportedFailure; readonly detail: JsonObject }
  /** The machine's git could not get the dependencies' work: not the task's fault. */
  | { readonly kind: "fault"; readonly message: string; readonly hint: string }
  | { readonly kind: "stopped" };

/**
 * The task's worktree (kept when `reuse` allows, else fresh with the dependencies' work merged in), with
 * the setup command run in a fresh one and what it made recorded. Dependencies whose work conflicts fail
 * `merge_conflict`; other failures are `setup_failed`; a dependency's work this machine cannot get is a
 * `fault`.
 */
export async function openPlace(
  ws: TaskWorkspaces,
  task: WorkspaceTask,
  options: { readonly reuse: boolean; readonly dependencyWork: readonly DependencyWork[] },
  setup: string | undefined,
  shell: ShellSettings,
  signal: AbortSignal,
): Promise<Place> {
  const { setupFailed } = WHILLY_FAILURE_REASONS;
  let prepared: PreparedWorkspace;
  try {
    prepared = await ws.prepare(task, { ...options, signal });
  } catch (error) {
    if (signal.aborted) return { kind: "stopped" };
    if (error instanceof WorkspaceUnavailable)
      return { kind: "fault", message: error.message, hint: error.hint ?? "" };
    if (error instanceof DependencyConflict) return conflicted(error);
    const failure = stepFailure(setupFailed, "git worktree add", null, messageOf(error), undefined);
    return { kind: "failed", failure, detail: {} };
  }
  const { dir } = prepared;
  const detail = { workspace: dir, branch: prepared.branch, base: prepared.base, reused: prepared.reused };
  if (prepared.reused || !setup) return { kind: "ready", dir, prepared, detail };
  const run = await runShellStep({ ...shell, command: setup, cwd: dir, signal });
  if (run.aborted || signal.aborted) return { kind: "stopped" };
  if (run.exitCode !== 0) {
    const failure = stepFailure(setupFailed, setup, run.exitCode, run.outputTail, undefined);
    return { kind: "failed", failure, detail };
  }
  try {
    await ws.recordSetup(dir);
  } catch (error) {
    const failure = stepFailure(setupFailed, "git ls-files --others", null, messageOf(error), undefined);
    return { kind: "failed", failure, detail };
  }
  return { kind: "ready", dir, prepared, detail };
}

/** `merge_conflict` for dependencies whose work conflicts, naming the dependency and the files. */
function conflicted(error: DependencyConflict): Place {
  const { taskId, branch } = error.dependency;
  const tail = `conflicting files:\n${error.files.join("\n")}`;
  const failure = stepFailure(
    WHILLY_FAILURE_REASONS.mergeConflict,
    `git merge ${branch}`,
    1,
    tail,
    undefined,
  );
  const detail = { message: error.message, conflict_files: [...error.files], conflicting_dependency: taskId };
  return { kind: "failed", failure, detail };
}
