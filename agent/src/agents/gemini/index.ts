import { MODEL_ENV_NAMES } from "../../generate/model-env.js";
import type { AgentAdapter, AgentInvocation } from "../types.js";
import { type GeminiPriceTable, loadGeminiPrices } from "./prices.js";
import { geminiResult } from "./result.js";
import { GeminiStreamReader } from "./stream.js";

export { type GeminiPriceTable, loadGeminiPrices, PRICES_VARIABLE } from "./prices.js";
export { geminiResult } from "./result.js";
export { GeminiStreamReader } from "./stream.js";

/** The model used when neither task, plan, flags nor `WHILLY_GEMINI_MODEL` name one (the CLI's own default). */
export const DEFAULT_GEMINI_MODEL = "gemini-2.5-pro";

/** What people are told when the Gemini CLI is missing or not logged in. */
export const GEMINI_UNAVAILABLE_HINTS = {
  auth: "set GEMINI_API_KEY (or run `gemini` once and log in with Google) for the user whilly runs as, then run again",
  install:
    "install Gemini CLI (npm install -g @google/gemini-cli) or set GEMINI_BIN to its path, then run again",
} as const;

/** Prefixes of the variables an answer run passes on besides {@link MODEL_ENV_NAMES}: the CLI's and Google's login and settings. */
const ANSWER_ENV_PREFIXES = ["GEMINI_", "GOOGLE_", "CLOUDSDK_", "LC_"];

/** Options of {@link createGeminiAdapter}. */
export type GeminiAdapterOptions = {
  /** The price table; default {@link loadGeminiPrices} of `env`. */
  readonly prices?: GeminiPriceTable;
};

/**
 * The Gemini CLI (`@google/gemini-cli`) behind the adapter interface. A task runs headless
 * (`--prompt=<prompt>`, one argument, never through a shell) with `--output-format stream-json` for live
 * progress, `--approval-mode yolo` so its own tools (`write_file`, `replace`, `run_shell_command`) work
 * in the worktree without asking, and `--skip-trust` so an untrusted worktree does not turn the approval
 * mode back to asking. The CLI stays one process (`GEMINI_CLI_NO_RELAUNCH=true` unless the user set it:
 * by default it starts itself again with a larger heap, which doubles its start-up time and leaves a
 * parent that ignores SIGTERM). An answer (plan generation) runs with `--approval-mode default`, where the headless
 * CLI offers only read-only tools (no writes, no shell), and only the environment a model needs. The
 * user's own login and `~/.gemini/settings.json` are used as they are. A failed attempt can continue its
 * session (`--resume <session id>`; the CLI keeps sessions per working directory). The result is folded
 * into the shared classifier's shape by {@link geminiResult}, with the cost priced from the table.
 * @param env the worker's environment: `GEMINI_BIN` (default `gemini` on PATH), `WHILLY_GEMINI_MODEL`
 *   (default {@link DEFAULT_GEMINI_MODEL}), `WHILLY_GEMINI_PRICES` (a price file replacing the bundled one).
 * @throws {ConfigurationError} when `WHILLY_GEMINI_PRICES` names a file that cannot be read or is not a
 *   valid price table (the message names the variable).
 */
export function createGeminiAdapter(
  env: Readonly<Record<string, string | undefined>>,
  options: GeminiAdapterOptions = {},
): AgentAdapter {
  const bin = nonEmpty(env.GEMINI_BIN) ?? "gemini";
  const prices = options.prices ?? loadGeminiPrices(env);
  return {
    name: "gemini",
    bin,
    binVariable: "GEMINI_BIN",
    defaultModel: nonEmpty(env.WHILLY_GEMINI_MODEL) ?? DEFAULT_GEMINI_MODEL,
    resumes: true,
    answers: true,
    unavailableHints: GEMINI_UNAVAILABLE_HINTS,
    successRule: "completion-marker",
    argv: (invocation) => geminiArgv(bin, invocation),
    env: (base, invocation) => ({
      ...(invocation.mode === "answer" ? answerEnv(base) : base),
      GEMINI_CLI_NO_RELAUNCH: base.GEMINI_CLI_NO_RELAUNCH ?? "true",
    }),
    stream: (onChange) => new GeminiStreamReader(onChange),
    result: (output) => geminiResult(output, prices),
    versionArgv: () => [bin, "--version"],
  };
}

/**
 * The command line of one run. The prompt goes in `--prompt=<prompt>` so a prompt starting with `-` is
 * never read as a flag; stdin stays closed (the CLI would append it to the prompt).
 */
export function geminiArgv(bin: string, invocation: AgentInvocation): string[] {
  const argv = [bin, "--output-format", "stream-json", "--model", invocation.model, "--skip-trust"];
  argv.push("--approval-mode", invocation.mode === "answer" ? "default" : "yolo");
  if (
    invocation.mode === "task" &&
    invocation.resumeSessionId !== undefined &&
    invocation.resumeSessionId !== ""
  ) {
    argv.push("--resume", invocation.resumeSessionId);
  }
  argv.push(`--prompt=${invocation.prompt}`);
  return argv;
}

/** The environment of an answer: where the process runs, proxies, and the CLI's and Google's own variables. */
function answerEnv(base: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (MODEL_ENV_NAMES.includes(name) || ANSWER_ENV_PREFIXES.some((p) => name.startsWith(p)))
      out[name] = value;
  }
  return out;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
