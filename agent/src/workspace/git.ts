import { execFile } from "node:child_process";
import { ConfigurationError } from "@whilly/core";

/** What one git command did. */
export type GitResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** How git commands of a repository are run. */
export type GitRunner = {
  /**
   * Runs `git <args>` in `cwd`; never rejects for a non-zero exit (see {@link GitResult.code}).
   * `options.timeoutMs` kills a git that talks to a remote for longer (code -1, stderr says so).
   */
  readonly run: (
    cwd: string,
    args: readonly string[],
    input?: string,
    options?: { readonly timeoutMs?: number | undefined },
  ) => Promise<GitResult>;
  /** Like `run`, but a non-zero exit throws a `ConfigurationError` naming the command and git's message. */
  readonly ok: (cwd: string, args: readonly string[], input?: string) => Promise<string>;
};

/**
 * Variables that point git at another repository or index: set by a git hook or an editor, they would
 * make every command below act on the wrong tree.
 */
const REPOSITORY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR"];

/**
 * Settings given to every command of a runner without hooks: no hook (the clone's hooks directory or a
 * `core.hooksPath` an agent set, as husky does), no fsmonitor command, no signing program. An agent's
 * worktree shares the clone's `.git`: what it installs there must not run in whilly's own git, with the
 * worker's credentials, nor fail its commits and merges.
 */
const NO_HOOKS = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "commit.gpgSign=false",
];

/** The most output kept of one git command, bytes: enough for a status of a large tree. */
const MAX_BUFFER = 64 * 1024 * 1024;

/**
 * A runner of the `git` CLI (execFile, no shell) with `env` (usually `process.env`; entries that would
 * redirect git elsewhere are dropped, and git never prompts for credentials). `hooks: false` for a
 * repository agents work in: no hook or other command of its configuration runs (see `NO_HOOKS`).
 */
export function gitRunner(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly hooks?: boolean | undefined } = {},
): GitRunner {
  const prefix = options.hooks === false ? NO_HOOKS : [];
  const gitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !REPOSITORY_VARIABLES.includes(key)) gitEnv[key] = value;
  }
  gitEnv.GIT_TERMINAL_PROMPT = "0";
  const run: GitRunner["run"] = (cwd, args, input, options = {}) =>
    new Promise<GitResult>((resolve) => {
      const timeout = options.timeoutMs ?? 0;
      const child = execFile(
        "git",
        [...prefix, ...args],
        { cwd, env: gitEnv, maxBuffer: MAX_BUFFER, encoding: "utf8", timeout, killSignal: "SIGKILL" },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
          const spawnMessage = error !== null && typeof error.code === "string" ? `${error.message}\n` : "";
          const timedOut = error?.killed === true && timeout > 0 ? `\nstopped after ${timeout} ms` : "";
          resolve({ code, stdout, stderr: `${spawnMessage}${stderr}${timedOut}` });
        },
      );
      // git may exit without reading its input (most commands never do): a closed pipe is no error.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(input ?? "");
    });
  const ok = async (cwd: string, args: readonly string[], input?: string) => {
    const result = await run(cwd, args, input);
    if (result.code !== 0) throw gitFailed(args, result);
    return result.stdout;
  };
  return { run, ok };
}

/** The error for a git command that should not fail: its command line, exit code and first lines of stderr. */
export function gitFailed(args: readonly string[], result: GitResult): ConfigurationError {
  const said = result.stderr.trim().split("\n").slice(0, 3).join("; ");
  return new ConfigurationError(
    `git ${args.join(" ")} failed (exit ${result.code})${said ? `: ${said}` : ""}`,
    {
      hint: "check the repository with `git status` and `git worktree list`; `git worktree prune` clears worktrees whose directory is gone",
    },
  );
}
