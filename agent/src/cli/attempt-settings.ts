import {
  ConfigurationError,
  DEFAULT_STALL_TIMEOUT,
  DEFAULT_TASK_TIMEOUT,
  DEFAULT_VERIFY_TIMEOUT,
} from "@whilly/core";
import { durationSetting } from "../runner/settings.js";
import type { WorkerFlags } from "./args.js";

/** How `whilly-worker` runs each attempt, as `whilly run` does (docs/worker.md). Durations are ms. */
export type WorkerAttemptSettings = {
  /** Per-task limit on the agent (`--task-timeout`). */
  readonly taskTimeoutMs: number;
  /** An agent that printed nothing for this long is ended `stalled` (`--stall-timeout`). */
  readonly stallTimeoutMs: number;
  /** The limit of each check and of the setup command (`--verify-timeout`). */
  readonly verifyTimeoutMs: number;
  /** `--setup`: run in each new worktree before the agent; overrides the plan's `setup`. */
  readonly setup: string | undefined;
  /** `--verify` (repeatable): the checks after each attempt; override the plan's `verify`. */
  readonly verify: readonly string[] | undefined;
  /** `--push`: a DONE task's branch is pushed to `remote`. */
  readonly push: boolean;
  /** `--remote`: where dependencies' branches are fetched from and DONE work pushed to; default `origin`. */
  readonly remote: string;
};

/** The remote a worker fetches from and pushes to when `--remote` is not given. */
export const DEFAULT_REMOTE = "origin";

/**
 * Validates the attempt flags of `whilly-worker`.
 * @throws {ConfigurationError} naming the flag: a blank `--setup`, `--verify` or `--remote`, a remote
 *   name git would read as an option, or a duration out of range.
 */
export function parseAttemptSettings(flags: WorkerFlags): WorkerAttemptSettings {
  const duration = (text: string | undefined, fallback: string, flag: string) =>
    durationSetting(text?.trim() || fallback, flag, { unitMs: 1000, units: true });
  return {
    taskTimeoutMs: duration(flags.taskTimeout, DEFAULT_TASK_TIMEOUT, "--task-timeout"),
    stallTimeoutMs: duration(flags.stallTimeout, DEFAULT_STALL_TIMEOUT, "--stall-timeout"),
    verifyTimeoutMs: duration(flags.verifyTimeout, DEFAULT_VERIFY_TIMEOUT, "--verify-timeout"),
    setup: flags.setup === undefined ? undefined : notBlank(flags.setup, "--setup", "'npm ci'"),
    verify: flags.verify?.map((command) => notBlank(command, "--verify", "'npm test'")),
    push: flags.push,
    remote: remoteName(flags.remote),
  };
}

function notBlank(value: string, flag: string, example: string): string {
  if (value.trim() !== "") return value;
  throw new ConfigurationError(`${flag} is empty`, {
    hint: `give a command, e.g. ${flag} ${example}, or drop ${flag}`,
  });
}

/** A remote's name as `git remote` lists it: no blank, no leading `-`, no spaces or control characters. */
function remoteName(value: string | undefined): string {
  if (value === undefined) return DEFAULT_REMOTE;
  const name = value.trim();
  if (name !== "" && !name.startsWith("-") && !/[\s\p{Cc}]/u.test(name)) return name;
  throw new ConfigurationError(`--remote '${value}' is not a git remote's name`, {
    hint: `name a remote of the clone (git remote lists them), or leave --remote out for ${DEFAULT_REMOTE}`,
  });
}
