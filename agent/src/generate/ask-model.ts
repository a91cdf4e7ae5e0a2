import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentOutcome, classifyAgentRun, secretValuesOf } from "@whilly/core";
import { ATTEMPT_ID_VARIABLE } from "../runner/end-processes.js";
import { runProcessGroup } from "../runner/process-group.js";
import { modelEnv } from "./model-env.js";

/** How generation runs the agent CLI: which, with what model and environment, and for how long. */
export type GenerationAgent = {
  /** The Claude Code CLI (`CLAUDE_BIN`, else `claude` on PATH). */
  readonly claudeBin: string;
  /** The `--model` value, passed as is. */
  readonly model: string;
  /** The caller's environment; only the model's variables reach the agent (see `modelEnv`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `WHILLY_CLAUDE_PROXY_URL`: the agent's `HTTPS_PROXY`, with `noProxy` as its `NO_PROXY`. */
  readonly proxyUrl?: string | undefined;
  readonly noProxy?: string | undefined;
  /** The most one call may take, ms; the agent's process group is killed then. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL when the agent is stopped, ms. */
  readonly killGraceMs: number;
  /** Values to hide besides the environment's secrets (whilly's own tokens, a database password). */
  readonly secrets?: readonly string[] | undefined;
  /** Where the scratch directory of each call is made; default the system temp directory. */
  readonly scratchParent?: string | undefined;
  /** How often a call still waiting for the model reports it, ms; default 15 s. */
  readonly waitingIntervalMs?: number | undefined;
};

/**
 * Built-in tools named to `--disallowedTools` as well, in case a Claude Code version reads `--tools ""`
 * differently: every tool that writes, runs, fetches or starts another agent.
 */
export const GENERATION_DISALLOWED_TOOLS: readonly string[] = [
  "Bash",
  "Edit",
  "MultiEdit",
  "Write",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  "Agent",
  "Task",
  "Read",
  "Glob",
  "Grep",
];

/**
 * The command line of a generation call: every built-in tool disabled (`--tools ""`, and the dangerous
 * ones denied by name too), any other tool call denied without asking (`--permission-mode dontAsk`), no
 * MCP server (`--strict-mcp-config` without a config), no slash commands, only the user's settings (not
 * a project's), no session saved, one turn, and the prompt as one argument after `--`.
 */
export function generationArgv(claudeBin: string, model: string, prompt: string): string[] {
  return [
    claudeBin,
    "--tools",
    "",
    "--disallowedTools",
    GENERATION_DISALLOWED_TOOLS.join(" "),
    "--permission-mode",
    "dontAsk",
    "--strict-mcp-config",
    "--disable-slash-commands",
    "--setting-sources",
    "user",
    "--no-session-persistence",
    "--max-turns",
    "1",
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    model,
    "-p",
    "--",
    prompt,
  ];
}

/** One call's result: the classified run (its `resultText` is the answer, redacted) and its command line. */
export type ModelAnswer = { readonly outcome: AgentOutcome; readonly argv: readonly string[] };

/**
 * Asks the model once: runs the agent CLI with {@link generationArgv} in a fresh scratch directory
 * (removed afterwards), with only the model's environment, in its own process group with the
 * attempt's mark, so nothing it starts outlives the call (docs/agent.md). The answer rule is the
 * answer's own: any non-empty final text succeeds, no completion marker. Never rejects for the
 * agent's failures; they come back as a failed outcome.
 * @param onWaiting called every `agent.waitingIntervalMs` while the model has not answered, with ms so far.
 */
export async function askModel(
  agent: GenerationAgent,
  prompt: string,
  options: {
    readonly signal?: AbortSignal | undefined;
    readonly onWaiting?: (elapsedMs: number) => void;
  } = {},
): Promise<ModelAnswer> {
  const argv = generationArgv(agent.claudeBin, agent.model, prompt);
  const attemptId = randomUUID();
  const env = {
    ...modelEnv(agent.env, { url: agent.proxyUrl, noProxy: agent.noProxy ?? "localhost,127.0.0.1,::1" }),
    [ATTEMPT_ID_VARIABLE]: attemptId,
  };
  const scratch = await mkdtemp(join(agent.scratchParent ?? tmpdir(), "whilly-generate-"));
  const started = performance.now();
  const waiting = setInterval(
    () => options.onWaiting?.(Math.round(performance.now() - started)),
    agent.waitingIntervalMs ?? 15_000,
  );
  try {
    const run = await runProcessGroup({
      argv,
      cwd: scratch,
      env,
      timeoutMs: agent.timeoutMs,
      killGraceMs: agent.killGraceMs,
      signal: options.signal,
      attemptId,
    });
    const secrets = [...(agent.secrets ?? []), ...secretValuesOf(agent.env)];
    return { outcome: classifyAgentRun({ ...run, secrets, resultRule: "answer" }), argv };
  } finally {
    clearInterval(waiting);
    await rm(scratch, { recursive: true, force: true });
  }
}
