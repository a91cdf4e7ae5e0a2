import { classifyTestStep, type TestStepKind } from "@whilly/core";
import { runShellStep } from "./shell-step.js";

/** The exit code of `sh -c` when the command is not found: the step is manual, not failed. */
export const COMMAND_NOT_FOUND = 127;

/** One check as recorded in the attempt's detail (`detail.checks`). JSON field names, snake_case. */
export type CheckRecord = {
  /** The step or verify command, as written in the plan. */
  readonly step: string;
  /** `run` when it ran to a verdict; `manual` when it is not whilly's to run (never fails the attempt). */
  readonly kind: "run" | "manual";
  /** Where it came from: the task's `test_steps` or the plan's `verify`. */
  readonly source: "test_step" | "verify";
  /** The exit code; `null` when it was not run, timed out or was stopped. */
  readonly exit_code: number | null;
  /** Wall time, ms; 0 when not run. */
  readonly ms: number;
  /** Why a manual step is manual: `manual:` prefix, prose, whilly's own command, or not found (127). */
  readonly manual_reason?: Exclude<TestStepKind, "command"> | "not_found" | "known" | undefined;
  readonly timed_out?: boolean | undefined;
};

/** The first check that failed. */
export type CheckFailure = {
  readonly step: string;
  readonly exit_code: number | null;
  /** The last 4 KiB of its output, credentials redacted. */
  readonly output_tail: string;
  readonly timed_out: boolean;
};

/**
 * The verdict of {@link runChecks}: `passed` when at least one check ran and every one that ran passed,
 * `failed` at the first that failed (later ones are not run), `unverified` when none was runnable.
 */
export type ChecksResult = {
  readonly status: "passed" | "failed" | "unverified";
  readonly checks: readonly CheckRecord[];
  readonly failing?: CheckFailure | undefined;
  /** Every step found manual so far, `knownManual` included: the next attempt does not run them. */
  readonly manualSteps: readonly string[];
  /** True when `signal` stopped the checks; the verdict then means nothing. */
  readonly aborted: boolean;
};

/** Options of {@link runChecks}. */
export type RunChecksOptions = {
  readonly cwd: string;
  /** The task's `test_steps`, each run as a shell command unless manual. */
  readonly steps: readonly string[];
  /** The plan's `verify` commands (or `--verify`), run after the steps. */
  readonly verify: readonly string[];
  /** The agent's environment; whilly's credentials are dropped (see `runShellStep`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Each check's limit, ms. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL on a timeout, ms. */
  readonly killGraceMs: number;
  /** Where the checks' processes are recorded while they run (`<stateDir>/attempts/`). */
  readonly stateDir?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Steps an earlier attempt found manual (`previous_failure.manual_steps`): recorded, not run again. */
  readonly knownManual?: readonly string[] | undefined;
  /** Secrets to hide from output tails besides those `env` holds. */
  readonly secrets?: readonly string[] | undefined;
  /** Called before each check runs. */
  readonly onCheck?: ((step: string) => void) | undefined;
};

/**
 * Runs a task's checks in `cwd` (docs/verification.md): each `test_steps` entry, then each `verify`
 * command, through `sh -c` with the agent's process containment, one at a time, each with its own
 * timeout. Steps core's `classifyTestStep` does not call commands, steps in `knownManual` and steps that
 * exit 127 (command not found) are manual: recorded, never failing. `verify` commands are always run
 * (127 makes them manual too). Never rejects.
 */
export async function runChecks(options: RunChecksOptions): Promise<ChecksResult> {
  const checks: CheckRecord[] = [];
  const known = new Set(options.knownManual ?? []);
  const manual = new Set(options.knownManual ?? []);
  const all = [
    ...options.steps.map((step) => ({ step, source: "test_step" as const })),
    ...options.verify.map((step) => ({ step, source: "verify" as const })),
  ];
  const result = (status: ChecksResult["status"], extra: Partial<ChecksResult> = {}): ChecksResult => ({
    status,
    checks,
    manualSteps: [...manual],
    aborted: false,
    ...extra,
  });
  for (const { step, source } of all) {
    const notRun = manualRecord(step, source, known);
    if (notRun !== undefined) {
      manual.add(step);
      checks.push(notRun);
      continue;
    }
    options.onCheck?.(step);
    const run = await runShellStep({ ...options, command: step });
    if (run.aborted || options.signal?.aborted) return result("failed", { aborted: true });
    const notFound = run.exitCode === COMMAND_NOT_FOUND;
    if (notFound) manual.add(step);
    checks.push({
      step,
      kind: notFound ? "manual" : "run",
      source,
      exit_code: run.exitCode,
      ms: run.ms,
      ...(notFound ? { manual_reason: "not_found" } : {}),
      ...(run.timedOut ? { timed_out: true } : {}),
    });
    if (!notFound && run.exitCode !== 0) {
      const failing = { step, exit_code: run.exitCode, output_tail: run.outputTail, timed_out: run.timedOut };
      return result("failed", { failing });
    }
  }
  return result(checks.some((c) => c.kind === "run") ? "passed" : "unverified");
}

/** The record of a step that is not run: manual by its text (test steps only), or known from an earlier attempt. */
function manualRecord(
  step: string,
  source: CheckRecord["source"],
  known: ReadonlySet<string>,
): CheckRecord | undefined {
  const kind = source === "test_step" ? classifyTestStep(step) : "command";
  if (kind === "command" && !known.has(step)) return undefined;
  const manual_reason = kind === "command" ? "known" : kind;
  return { step, kind: "manual", source, exit_code: null, ms: 0, manual_reason };
}
