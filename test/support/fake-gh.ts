import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { FIXTURES, scratchDir } from "./cli.js";

/** The directory holding the fake `gh` executable: put it first on `PATH`. */
export const FAKE_GH_DIR = join(FIXTURES, "fake-gh");

/** A label of a repository in the fake's state. */
export type FakeLabel = { name: string; color?: string; description?: string };

/** A comment of an issue; `author` is a login. */
export type FakeComment = { id?: number; author?: string; body: string; created_at?: string };

/** An issue; `labels` are names, `state` `OPEN` (default) or `CLOSED`. */
export type FakeIssue = {
  number: number;
  title?: string;
  body?: string;
  state?: "OPEN" | "CLOSED";
  labels?: string[];
  comments?: FakeComment[];
  author?: string;
  url?: string;
};

/** A pull request; `head` and `base` are branch names, `state` `OPEN` (default), `CLOSED` or `MERGED`. */
export type FakePull = {
  number: number;
  title?: string;
  body?: string;
  head: string;
  base?: string;
  state?: "OPEN" | "CLOSED" | "MERGED";
  draft?: boolean;
  labels?: string[];
};

/** A repository; with `git_dir` (a bare repository on disk) `gh pr create` requires its head and base there. */
export type FakeRepo = {
  default_branch?: string;
  git_dir?: string;
  labels?: FakeLabel[];
  issues?: FakeIssue[];
  pulls?: FakePull[];
};

/**
 * Makes calls whose argv holds every word of `args` in order (and `contains` in the joined argv) wait
 * `sleep_ms`, then fail with `exit_code` (default 1), `stderr` and `stdout`, or go on as usual with `pass`.
 * `times` limits how many calls it catches (default: all).
 */
export type FakeFailure = {
  args?: string[];
  contains?: string;
  times?: number;
  sleep_ms?: number;
  exit_code?: number;
  stderr?: string;
  stdout?: string;
  pass?: boolean;
};

/** The fake gh's state file (docs/fake-gh.md). */
export type FakeGhState = {
  gh_version?: string;
  /** `logged_in: false` is "not logged in" unless GH_TOKEN or GITHUB_TOKEN is set. */
  auth?: { logged_in?: boolean; user?: string };
  /** The repository when neither `--repo` nor `GH_REPO` names one (gh's guess from the git remotes). */
  default_repo?: string;
  repos?: Record<string, FakeRepo>;
  failures?: FakeFailure[];
  seq?: number;
};

/** One call of the fake, as its log line records it. */
export type GhCall = {
  argv: string[];
  cwd: string;
  /** The token variables as present or not; GH_REPO, GH_HOST, GH_PROMPT_DISABLED, ... by value. */
  env: Record<string, boolean | string>;
  env_names: string[];
  /** What it read from stdin (`--body-file -`). */
  stdin?: string;
  time: string;
};

/** A fake gh set up by {@link fakeGh}. */
export type FakeGh = {
  readonly stateFile: string;
  readonly logFile: string;
  /** `PATH` (the fake's directory first), `FAKE_GH_FIXTURES` and `FAKE_GH_LOG`: merge into a test's env. */
  readonly env: Record<string, string>;
  /** Every call so far, oldest first. */
  calls(): GhCall[];
  /** The calls whose argv starts with `words` (e.g. `"pr", "create"`). */
  callsOf(...words: string[]): GhCall[];
  /** The state as the fake left it. */
  state(): FakeGhState;
  /** Replaces the state (e.g. to add a failure between two runs). */
  setState(state: FakeGhState): void;
};

/**
 * Writes `state` to a scratch directory and returns the environment that runs the fake `gh` against
 * it. `path` is the `PATH` to put the fake in front of (default: node's directory and the system's).
 */
export function fakeGh(state: FakeGhState, path?: string): FakeGh {
  const dir = scratchDir("whilly-gh-");
  const stateFile = join(dir, "state.json");
  const logFile = join(dir, "calls.jsonl");
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
  const rest = path ?? `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  const calls = (): GhCall[] =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as GhCall)
      : [];
  return {
    stateFile,
    logFile,
    env: { PATH: `${FAKE_GH_DIR}${delimiter}${rest}`, FAKE_GH_FIXTURES: stateFile, FAKE_GH_LOG: logFile },
    calls,
    callsOf: (...words) => calls().filter((c) => words.every((w, i) => c.argv[i] === w)),
    state: () => JSON.parse(readFileSync(stateFile, "utf8")) as FakeGhState,
    setState: (next) => writeFileSync(stateFile, JSON.stringify(next, null, 2)),
  };
}

/**
 * A `PATH` with node and git and nothing else (links in a scratch directory), for "gh is not
 * installed" tests on machines where a real gh sits in /usr/bin beside git.
 */
export function pathWithoutGh(): string {
  const dir = join(scratchDir("whilly-path-"), "bin");
  mkdirSync(dir);
  symlinkSync(process.execPath, join(dir, "node"));
  const git = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  symlinkSync(git, join(dir, "git"));
  return dir;
}
