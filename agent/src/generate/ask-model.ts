import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentOutcome, secretValuesOf } from "@whilly/core";
import { createClaudeAdapter } from "../agents/claude/index.js";
import type { AgentAdapter } from "../agents/types.js";
import { runAgent } from "../runner/run-agent.js";
import { type ClaudeSettings, DEFAULT_NO_PROXY } from "../runner/settings.js";

export { GENERATION_DISALLOWED_TOOLS, generationArgv } from "../agents/claude/answer-argv.js";

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
  /**
   * The agent that answers, when not Claude Code (`--agent` of `init` and `forge intake`): an adapter
   * whose `answers` is true, run in its `answer` mode. Claude Code from `claudeBin` when undefined.
   */
  readonly adapter?: AgentAdapter | undefined;
};

/** One call's result: the classified run (its `resultText` is the answer, redacted) and its command line. */
export type ModelAnswer = { readonly outcome: AgentOutcome; readonly argv: readonly string[] };

/**
 * Asks the model once: runs the agent's adapter in its `answer` mode (Claude Code: `generationArgv`,
 * every tool off, only the model's environment) through the shared runner, in a fresh scratch
 * directory (removed afterwards), in its own process group with the attempt's mark, so nothing it starts outlives the call (docs/agent.md). The answer rule is the
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
  const adapter = agent.adapter ?? claudeAnswerAdapter(agent);
  const scratch = await mkdtemp(join(agent.scratchParent ?? tmpdir(), "whilly-generate-"));
  const started = performance.now();
  const waiting = setInterval(
    () => options.onWaiting?.(Math.round(performance.now() - started)),
    agent.waitingIntervalMs ?? 15_000,
  );
  try {
    const run = await runAgent({
      adapter,
      invocation: { prompt, model: agent.model, cwd: scratch, taskId: "", mode: "answer" },
      timeoutMs: agent.timeoutMs,
      killGraceMs: agent.killGraceMs,
      env: agent.env,
      signal: options.signal,
      secrets: [...(agent.secrets ?? []), ...secretValuesOf(agent.env)],
    });
    return { outcome: run.outcome, argv: run.argv };
  } finally {
    clearInterval(waiting);
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Claude Code as {@link GenerationAgent} names it, for an answer: its bin, the proxy, nothing else. */
function claudeAnswerAdapter(agent: GenerationAgent): AgentAdapter {
  const settings: ClaudeSettings = {
    claudeBin: agent.claudeBin,
    model: agent.model,
    safe: false,
    permissions: "skip",
    allowedTools: [],
    proxyUrl: agent.proxyUrl,
    noProxy: agent.noProxy ?? DEFAULT_NO_PROXY,
    maxTurns: undefined,
    killGraceMs: agent.killGraceMs,
  };
  return createClaudeAdapter(settings);
}
