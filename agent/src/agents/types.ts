import type { AgentUnavailableKind, AttemptProgress, RawAgentResult } from "@whilly/core";

/**
 * The names whilly knows an agent by: `claude` (Claude Code), `codex` (OpenAI Codex CLI), `gemini`
 * (Gemini CLI), `cmd` (a command the user gives with `--agent-cmd`). A plan may name any string; a
 * worker only claims tasks whose agent it has (docs/agents.md).
 */
export type AgentName = string;

/** What one run of an agent CLI is asked to do. */
export type AgentInvocation = {
  /** The task prompt (or, for an answer, the question), passed as the adapter's CLI wants it. */
  readonly prompt: string;
  /**
   * A file holding the same prompt, written by the runner before the start, for CLIs (and `--agent-cmd`
   * templates) that read the prompt from a file; removed after the run.
   */
  readonly promptFile: string;
  /** The model for this run, already resolved for this adapter (never another agent's model). */
  readonly model: string;
  /** The agent's working directory (the task's workspace). */
  readonly cwd: string;
  /** The task's id (for `--agent-cmd`'s `{task_id}`); empty for a plan-generation answer. */
  readonly taskId: string;
  /** Continue this session; only set when {@link AgentAdapter.resumes} is true. */
  readonly resumeSessionId?: string | undefined;
  /**
   * `task`: work with every tool the agent has, and end with the completion marker. `answer`: a
   * one-turn reply with every tool disabled (plan generation); only for adapters whose
   * {@link AgentAdapter.answers} is true.
   */
  readonly mode: "task" | "answer";
};

/**
 * Reads an agent's live stdout as it arrives, for progress only (the verdict is made at the end from
 * the whole output). One instance per run.
 */
export interface AgentStreamReader {
  /** Feeds decoded stdout; a partial line waits for its end. */
  push(chunk: string): void;
  /** The session (thread) id the stream named so far, if any. */
  readonly sessionId: string | undefined;
  /** Turns so far and the last tool the agent called. */
  readonly progress: AttemptProgress;
  /** When a limit that refused this run resets, if the stream said so. */
  readonly limitResetsAt: Date | undefined;
}

/**
 * One agent CLI behind whilly: everything that differs between CLIs, and nothing else. The process
 * handling (timeouts, stall detection, ending every process the agent started), the classification
 * order, verification and retries are shared (agent/src/runner, core/src/agent-result).
 */
export interface AgentAdapter {
  /** The name plans and flags use (`claude`, `codex`, ...). */
  readonly name: AgentName;
  /** The program started: its variable's value (e.g. `CODEX_BIN`), else its usual name on `PATH`. */
  readonly bin: string;
  /** The variable that chooses {@link bin}, named in errors (`CLAUDE_BIN`, `CODEX_BIN`, ...). */
  readonly binVariable: string;
  /** The model used when neither task, plan nor flags name one (from this agent's own variable). */
  readonly defaultModel: string;
  /** True when a failed attempt can continue the agent's session in the same worktree. */
  readonly resumes: boolean;
  /** True when the CLI can give a tool-less one-turn answer (plan generation). */
  readonly answers: boolean;
  /** What people are told to do when the CLI is missing or not logged in. */
  readonly unavailableHints: Readonly<Record<AgentUnavailableKind, string>>;
  /** The command line of one run, program first; the prompt is never passed through a shell. */
  argv(invocation: AgentInvocation): string[];
  /**
   * The child's environment from the runner's (credentials of whilly and git already removed): what
   * this CLI needs added or taken away (a proxy, a config directory). Must not change `base`.
   */
  env(base: Readonly<Record<string, string>>, invocation: AgentInvocation): Record<string, string>;
  /** A new reader of this CLI's live output. */
  stream(onChange: (progress: AttemptProgress) => void): AgentStreamReader;
  /**
   * The run's result in the shape the shared classifier reads (see {@link RawAgentResult}), from what
   * the process printed; `undefined` when the output holds no result (the classifier then judges by
   * exit code and signal). Total: never throws, whatever was printed.
   * @param invocation the run's invocation, for adapters that price the run themselves by its model
   *   (Codex); without it they assume their default model.
   */
  result(
    output: {
      readonly stdout: string;
      readonly stderr: string;
      readonly exitCode: number | null;
    },
    invocation?: AgentInvocation,
  ): RawAgentResult | undefined;
  /**
   * How success is judged from a result: `completion-marker` (the final text must end with
   * `<promise>COMPLETE</promise>`) or `exit-code` (exit 0 is success; whilly's checks decide the rest).
   */
  readonly successRule: "completion-marker" | "exit-code";
  /**
   * True when output on stderr shows the agent is alive as stdout does (the generic command, whose
   * stdout whilly does not read as events): it restarts the stall clock too. Default: stdout only.
   */
  readonly stderrIsActivity?: boolean | undefined;
  /** The command line of a quick check that the CLI starts here (`<bin> --version`). */
  versionArgv(): string[];
}
