import {
  DEFAULT_STALL_TIMEOUT,
  DEFAULT_TASK_TIMEOUT,
  DEFAULT_VERIFY_TIMEOUT,
  MAX_MAX_ATTEMPTS,
} from "@whilly/core";
import type { ArgumentsCamelCase, Argv } from "yargs";

/** The most claim slots `--concurrency` takes: each runs an agent, a process group and a worktree. */
export const MAX_CONCURRENCY = 32;

/** `whilly run`'s options and their help, kept apart from its work so every start can register them cheaply. */
export function runOptions(a: Argv) {
  return a
    .positional("file", {
      type: "string",
      describe: "plan file to import (or resume, if already stored)",
    })
    .option("plan", { type: "string", describe: "id of a stored plan to run (instead of a file)" })
    .option("concurrency", {
      alias: "j",
      type: "string",
      describe: "run up to N ready tasks at once, each in its own git worktree (default 1)",
    })
    .option("branch", {
      type: "string",
      describe: "integration branch the plan's work is merged into (default whilly/<plan-slug>)",
    })
    .option("setup", {
      type: "string",
      describe: "command run in each new worktree before the agent, e.g. 'npm ci' (else the plan's setup)",
    })
    .option("verify", {
      type: "string",
      array: true,
      describe:
        "check run after each attempt and on the merged tree, e.g. 'npm test'; repeatable (else the plan's verify)",
    })
    .option("verify-timeout", {
      type: "string",
      default: DEFAULT_VERIFY_TIMEOUT,
      describe: "stop one check after this long: 90s, 10m (bare number: seconds)",
    })
    .option("max-attempts", {
      type: "string",
      describe: `attempts per task before it is FAILED, 1 to ${MAX_MAX_ATTEMPTS} (stored as the plan's; default the plan's, else 3)`,
    })
    .option("task-timeout", {
      type: "string",
      default: DEFAULT_TASK_TIMEOUT,
      describe: "kill the agent after this long per task: 90s, 30m, 1h (bare number: seconds)",
    })
    .option("stall-timeout", {
      type: "string",
      default: DEFAULT_STALL_TIMEOUT,
      describe: "end an attempt whose agent printed nothing for this long (stalled)",
    })
    .option("wait", {
      type: "boolean",
      default: true,
      describe: "wait out provider limits and retry backoffs; --no-wait exits 75 when only such work is left",
    })
    .option("max-tasks", {
      type: "string",
      describe:
        "stop after this many attempts finished, a failed one that will be retried included (exit 0 when they are all DONE; run again to continue)",
    })
    .option("agent", {
      type: "string",
      describe: "the agent for tasks whose plan names none: claude, cmd (default claude)",
    })
    .option("model", { type: "string", describe: "that agent's model (default: the agent's own)" })
    .option("force-agent", {
      type: "string",
      describe: "run every task on this agent, whatever the plan says",
    })
    .option("force-model", { type: "string", describe: "run every task with this model" })
    .option("agent-cmd", {
      type: "string",
      describe:
        "the cmd agent's command (WHILLY_AGENT_CMD), e.g. 'my-agent --prompt-file {prompt_file} --model {model}'; never run through a shell",
    })
    .option("tags", {
      type: "string",
      describe: "tags this machine has (gpu,macos): tasks requiring them run here",
    })
    .option("json", { type: "boolean", default: false, describe: "print the summary as JSON" })
    .option("ui", {
      type: "boolean",
      default: false,
      describe:
        "serve the web dashboard on 127.0.0.1 while the run goes; prints a one-time sign-in link on stderr",
    })
    .option("port", {
      type: "string",
      describe: "the dashboard's port with --ui (0: any free port; default WHILLY_UI_PORT, else 0)",
    });
}

/** `whilly run`'s arguments as yargs parses them. */
export type RunArgs = ReturnType<typeof runOptions> extends Argv<infer T> ? ArgumentsCamelCase<T> : never;
