import { type JsonObject, WHILLY_FAILURE_REASONS } from "@whilly/core";
import { runShellStep, type ShellStepOptions } from "../verify/shell-step.js";
import type { PreparedWorkspace, Workspaces, WorkspaceTask } from "../workspace/workspaces.js";
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
  | { readonly kind: "stopped" };

/**
 * The task's worktree (kept when `reuse` allows, else fresh), with the setup command run in a fresh one
 * and what it made recorded; failures are `setup_failed`.
 */
export async function openPlace(
  ws: Workspaces,
  task: WorkspaceTask,
  reuse: boolean,
  setup: string | undefined,
  shell: ShellSettings,
  signal: AbortSignal,
): Promise<Place> {
  const { setupFailed } = WHILLY_FAILURE_REASONS;
  let prepared: PreparedWorkspace;
  try {
    prepared = await ws.prepare(task, { reuse });
  } catch (error) {
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
