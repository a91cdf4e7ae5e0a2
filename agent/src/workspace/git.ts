import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { ConfigurationError } from "@whilly/core";

/** What one git command did. */
export type GitResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** How git commands of a repository are run. */
export type GitRunner = {
  /**
   * Runs `git <args>` in `cwd`; never rejects for a non-zero exit (see {@link GitResult.code}).
   * `options.timeoutMs` kills a git that talks to a remote for longer, `options.signal` when it aborts:
   * git and the helpers it started (`git-remote-https`, `ssh`), as one process group (code -1, stderr
   * says why).
   */
  readonly run: (
    cwd: string,
    args: readonly string[],
    input?: string,
    options?: { readonly timeoutMs?: number | undefined; readonly signal?: AbortSignal | undefined },
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
      const { timeoutMs = 0, signal } = options;
      // A git that may be stopped gets a process group of its own, so its helpers go with it.
      const watched = timeoutMs > 0 || signal !== undefined;
      const child = spawn("git", [...prefix, ...args], { cwd, env: gitEnv, detached: watched });
      const out = collect(child.stdout);
      const err = collect(child.stderr);
      let stopped: string | undefined;
      let failed = "";
      const stop = (why: string) => {
        if (stopped !== undefined || child.pid === undefined || child.exitCode !== null) return;
        stopped = why;
        // A helper that outlived the kill would hold the pipes open, and the close would never come.
        child.stdout?.destroy();
        child.stderr?.destroy();
        try {
          process.kill(watched ? -child.pid : child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      };
      const tooMuch = () => stop(`stopped: more than ${MAX_BUFFER} bytes of output`);
      out.onOverflow = tooMuch;
      err.onOverflow = tooMuch;
      const timer =
        timeoutMs > 0 ? setTimeout(() => stop(`stopped after ${timeoutMs} ms`), timeoutMs) : undefined;
      const onAbort = () => stop("stopped: the worker is stopping");
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      child.on("error", (error) => {
        failed = `${error.message}\n`;
      });
      child.on("close", (exit) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const why = stopped === undefined ? "" : `\n${stopped}`;
        const code = stopped !== undefined || failed !== "" || exit === null ? -1 : exit;
        resolve({ code, stdout: out.text(), stderr: `${failed}${err.text()}${why}` });
      });
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

/** A stream's text, up to {@link MAX_BUFFER} bytes; `onOverflow` is called once past it. */
function collect(stream: Readable | null) {
  const chunks: Buffer[] = [];
  let size = 0;
  const sink: { onOverflow: () => void; text: () => string } = {
    onOverflow: () => undefined,
    text: () => Buffer.concat(chunks).toString("utf8"),
  };
  stream?.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BUFFER) sink.onOverflow();
    else chunks.push(chunk);
  });
  return sink;
}
