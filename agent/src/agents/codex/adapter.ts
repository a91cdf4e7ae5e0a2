import { ConfigurationError, MODEL_NAME } from "@whilly/core";
import type { AgentAdapter, AgentInvocation } from "../types.js";
import { type CodexPriceTable, loadCodexPrices } from "./prices.js";
import { foldCodexRun } from "./result.js";
import { CodexStream } from "./stream.js";

/** The model a Codex task runs on when neither task, plan, flags nor `WHILLY_CODEX_MODEL` name one. */
export const DEFAULT_CODEX_MODEL = "gpt-5-codex";

/** Options of {@link createCodexAdapter}. */
export type CodexAdapterOptions = {
  /**
   * Continue a failed attempt's thread (`codex exec resume <id>`). Off by default: Codex reports the
   * thread's running token total, so a resumed attempt's cost would count the earlier attempts again;
   * each attempt starts a fresh thread with the whole prompt (which says what went wrong) instead.
   */
  readonly resumes?: boolean;
  /** Reads the `WHILLY_CODEX_PRICES` file (tests pass their own). */
  readonly readFile?: (path: string) => string;
};

/**
 * The flags of every run: JSON Lines events on stdout; no Git check (whilly manages the workspace);
 * no approvals or sandbox (the per-task worktree is the fence, as for Claude Code); and Codex's
 * memories off, so nothing one task's thread learned reaches another task's prompt. Everything
 * else (login, provider, `config.toml`, `CODEX_HOME`) is the user's, used as it is.
 */
const TASK_FLAGS = [
  "--json",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
  "-c",
  "features.memories=false",
];

/**
 * A tool-less one-turn answer (plan generation): a read-only sandbox, the shell, goals, sub-agents and
 * web search turned off (what is left, `request_user_input` and `view_image`, cannot change anything),
 * and no session kept on disk. `-c features.*` is used instead of `--disable` because Codex ignores an
 * unknown key there, where it refuses an unknown `--disable` name.
 */
const ANSWER_FLAGS = [
  "--json",
  "--skip-git-repo-check",
  "--ephemeral",
  "--sandbox",
  "read-only",
  "-c",
  "features.shell_tool=false",
  "-c",
  "features.goals=false",
  "-c",
  "features.multi_agent=false",
  "-c",
  "features.memories=false",
  "-c",
  'web_search="disabled"',
];

/**
 * The OpenAI Codex CLI behind whilly (docs/agents.md): `codex exec --json` with the prompt as one argv
 * element, its JSON Lines read by {@link CodexStream} for progress and folded by `foldCodexRun` into
 * the shared result shape, its cost computed from the price table (`loadCodexPrices`). The program is
 * `CODEX_BIN`, else `codex` on `PATH`; the default model `WHILLY_CODEX_MODEL`, else
 * {@link DEFAULT_CODEX_MODEL}.
 * @throws {ConfigurationError} naming `WHILLY_CODEX_MODEL` for a value that is not a model name, or
 *   `WHILLY_CODEX_PRICES` for a price file that cannot be read or is not a price table.
 */
export function createCodexAdapter(
  env: Readonly<Record<string, string | undefined>>,
  options: CodexAdapterOptions = {},
): AgentAdapter {
  const bin = env.CODEX_BIN?.trim() || "codex";
  const defaultModel = env.WHILLY_CODEX_MODEL?.trim() || DEFAULT_CODEX_MODEL;
  if (!MODEL_NAME.test(defaultModel)) {
    throw new ConfigurationError(`WHILLY_CODEX_MODEL is not a model name: ${JSON.stringify(defaultModel)}`, {
      hint: "set it to a Codex model such as gpt-5-codex (no spaces), or unset it",
    });
  }
  const prices: CodexPriceTable = loadCodexPrices(env, options.readFile);
  const resumes = options.resumes ?? false;
  return {
    name: "codex",
    bin,
    binVariable: "CODEX_BIN",
    defaultModel,
    resumes,
    answers: true,
    unavailableHints: {
      auth: "run `codex login` (or set OPENAI_API_KEY, or the env_key of the model provider in $CODEX_HOME/config.toml) for the user whilly runs as, then run again",
      install:
        "install the Codex CLI (npm install -g @openai/codex) or set CODEX_BIN to its path, then run again",
    },
    argv: (invocation) => codexArgv(bin, invocation, resumes),
    env: (base) => ({ ...base }),
    stream: (onChange) => new CodexStream(onChange),
    result: (output, invocation) => foldCodexRun(output, invocation?.model ?? defaultModel, prices),
    successRule: "completion-marker",
    versionArgv: () => [bin, "--version"],
  };
}

/**
 * The command line of one run. A task: `codex exec <flags> -C <cwd> -m <model> -- <prompt>`, a fresh
 * thread each time (never `--last`); with `resumes` and a session, `codex exec resume <flags> -m
 * <model> -- <thread id> <prompt>` (run in the same directory). An answer: the tool-less flags.
 */
export function codexArgv(bin: string, invocation: AgentInvocation, resumes = false): string[] {
  const { prompt, model, cwd, resumeSessionId } = invocation;
  if (invocation.mode === "answer")
    return [bin, "exec", ...ANSWER_FLAGS, "-C", cwd, "-m", model, "--", prompt];
  if (resumes && resumeSessionId !== undefined && resumeSessionId !== "") {
    return [bin, "exec", "resume", ...TASK_FLAGS, "-m", model, "--", resumeSessionId, prompt];
  }
  return [bin, "exec", ...TASK_FLAGS, "-C", cwd, "-m", model, "--", prompt];
}
