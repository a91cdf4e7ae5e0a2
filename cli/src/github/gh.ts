import { execFile } from "node:child_process";
import {
  ConfigurationError,
  outputTail,
  readDuration,
  redactSecrets,
  type SettingsProblem,
  settingsError,
  TransportError,
} from "@whilly/core";

/** How long one `gh` call may take before it is killed (ms), unless `WHILLY_GH_TIMEOUT` says otherwise. */
export const DEFAULT_GH_TIMEOUT_MS = 30_000;

const MAX_BUFFER = 16 * 1024 * 1024;

/** What one `gh` call did. */
export type GhResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** Runs the GitHub CLI: `run` answers every exit code, `ok` throws on a non-zero one. */
export type Gh = {
  run(args: readonly string[], options?: { input?: string }): Promise<GhResult>;
  /**
   * @returns stdout.
   * @throws ConfigurationError when gh is not logged in (exit 4); TransportError naming the command,
   *   its exit code and gh's message otherwise.
   */
  ok(args: readonly string[], options?: { input?: string }): Promise<string>;
};

/** Options of {@link ghRunner}. */
export type GhOptions = {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where gh runs: a clone, so gh can tell the repository from its remotes. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Values hidden in gh's messages before they are shown. */
  readonly secrets: readonly string[];
  /** What gh is used for, for the message when it is missing (`whilly plan pr opens the pull request with it`). */
  readonly purpose: string;
  /** Kills a running gh (Ctrl-C); the call then rejects. */
  readonly signal?: AbortSignal | undefined;
};

/**
 * Reads `WHILLY_GH_TIMEOUT` (`30s`, `2m`; a bare number is seconds; default 30 s).
 * @returns milliseconds.
 * @throws ConfigurationError for a bad value.
 */
export function ghTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const problems: SettingsProblem[] = [];
  const ms = readDuration(
    env,
    "WHILLY_GH_TIMEOUT",
    { fallbackMs: DEFAULT_GH_TIMEOUT_MS, unitMs: 1000, units: true },
    problems,
  );
  const error = settingsError(problems);
  if (error) throw error;
  return ms;
}

/**
 * The environment gh gets: the caller's, minus whilly's and the agent's own settings and secrets
 * (`WHILLY_*`, `ANTHROPIC_*`, `CLAUDE_*`), with prompts and the update check off.
 */
function ghEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !/^(WHILLY_|ANTHROPIC_|CLAUDE_)/.test(key)) out[key] = value;
  }
  out.GH_PROMPT_DISABLED = "1";
  out.GH_NO_UPDATE_NOTIFIER = "1";
  out.NO_COLOR = "1";
  return out;
}

/** A runner of `gh` on `PATH`, each call killed after the timeout. */
export function ghRunner(options: GhOptions): Gh {
  const env = ghEnv(options.env);
  const clean = (text: string) => redactSecrets(text, options.secrets);
  const run: Gh["run"] = (args, runOptions = {}) =>
    new Promise<GhResult>((resolve, reject) => {
      const child = execFile(
        "gh",
        [...args],
        {
          cwd: options.cwd,
          env,
          encoding: "utf8",
          maxBuffer: MAX_BUFFER,
          timeout: options.timeoutMs,
          killSignal: "SIGKILL",
          signal: options.signal,
        },
        (error, stdout, stderr) => {
          if (error === null) return resolve({ code: 0, stdout, stderr });
          if (error.code === "ENOENT") return reject(ghMissing(options.purpose));
          if (options.signal?.aborted) return reject(error);
          if (error.killed === true) {
            return reject(
              new TransportError(
                `gh ${args.slice(0, 2).join(" ")} did not finish within ${options.timeoutMs / 1000} s`,
                undefined,
                {
                  retryable: true,
                  hint: "check the network and GitHub's status, then run again; WHILLY_GH_TIMEOUT gives gh longer (e.g. 2m)",
                },
              ),
            );
          }
          resolve({ code: typeof error.code === "number" ? error.code : 1, stdout, stderr: clean(stderr) });
        },
      );
      // gh reads stdin only for `--body-file -`: a closed pipe is no error.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(runOptions.input ?? "");
    });
  const ok: Gh["ok"] = async (args, runOptions) => {
    const result = await run(args, runOptions);
    if (result.code === 0) return result.stdout;
    throw ghError(args, result);
  };
  return { run, ok };
}

/**
 * Parses what a `gh ... --json` call printed.
 * @throws TransportError naming the command when it is not JSON (an old gh, a proxy's page).
 */
export function ghJson<T>(args: readonly string[], out: string): T {
  try {
    return JSON.parse(out) as T;
  } catch (cause) {
    throw new TransportError(
      `gh ${args.slice(0, 2).join(" ")} printed something that is not JSON: ${out.slice(0, 200)}`,
      undefined,
      {
        cause,
        retryable: false,
        hint: "check gh works here (gh --version: 2.x reads --json; gh auth status)",
      },
    );
  }
}

/**
 * Checks gh is installed and logged in (`gh auth status`) before anything is changed.
 * @throws ConfigurationError naming what is missing, with the fix.
 */
export async function requireGh(gh: Gh): Promise<void> {
  const status = await gh.run(["auth", "status"]);
  if (status.code !== 0) throw notLoggedIn(status.stderr || status.stdout);
}

/**
 * The error for a failed gh command: not logged in (exit 4), else the command, its exit code and the
 * end of gh's message.
 */
export function ghError(args: readonly string[], result: GhResult): ConfigurationError | TransportError {
  if (result.code === 4) return notLoggedIn(result.stderr);
  const said = outputTail(result.stderr.trim() || result.stdout.trim(), 600);
  return new TransportError(
    `gh ${args.slice(0, 2).join(" ")} failed (exit ${result.code})${said ? `: ${said}` : ""}`,
    undefined,
    { retryable: false, hint: "fix what gh says, then run again" },
  );
}

function ghMissing(purpose: string): ConfigurationError {
  return new ConfigurationError(`gh, the GitHub CLI, is not on PATH: ${purpose}`, {
    hint: "install it (https://cli.github.com), then log in with gh auth login or set GH_TOKEN",
  });
}

function notLoggedIn(said: string): ConfigurationError {
  const first = said.trim().split("\n")[0] ?? "";
  return new ConfigurationError(`gh is not logged in to GitHub${first ? ` (gh: ${first})` : ""}`, {
    hint: "run gh auth login, or set GH_TOKEN to a token of the repository (docs/forge.md and docs/pr.md say which access each command needs)",
  });
}
