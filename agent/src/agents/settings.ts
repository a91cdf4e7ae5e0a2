import { type ClaudeSettings, durationSetting, parseClaudeSettings } from "../runner/settings.js";
import { type CmdTemplate, parseCmdTemplate } from "./cmd/template.js";

/** How long an agent's start check (`<bin> --version`) may take when `WHILLY_AGENT_PROBE_TIMEOUT` is unset, ms. */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** Everything the adapters read from the environment and the command line, validated once. */
export type AgentSettings = {
  /** Claude Code's (`CLAUDE_BIN`, `WHILLY_MODEL`, `WHILLY_CLAUDE_*`). */
  readonly claude: ClaudeSettings;
  /** `--agent-cmd`, else `WHILLY_AGENT_CMD`, parsed; `undefined` when neither is given (no `cmd` agent). */
  readonly agentCmd: CmdTemplate | undefined;
  /** The most an agent's start check may take, ms (`WHILLY_AGENT_PROBE_TIMEOUT`). */
  readonly probeTimeoutMs: number;
  /** The environment, for adapters that read their own variables (`CODEX_BIN`, `GEMINI_BIN`, ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** whilly's directory: a relative program path of `--agent-cmd` is taken from it. */
  readonly cwd: string;
};

/**
 * Reads the adapters' settings: Claude Code's ({@link parseClaudeSettings}), the generic command
 * (`--agent-cmd` wins over `WHILLY_AGENT_CMD`; an empty value is none) and `WHILLY_AGENT_PROBE_TIMEOUT`
 * (seconds, or with a unit: `5s`, `1m`; default 10 s).
 * @throws {ConfigurationError} naming the variable or flag when a value is invalid.
 */
export function parseAgentSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly agentCmd?: string | undefined; readonly cwd: string; readonly isRoot?: boolean },
): AgentSettings {
  const claude = parseClaudeSettings(env, options.isRoot === undefined ? {} : { isRoot: options.isRoot });
  const flag = options.agentCmd?.trim();
  const fromEnv = env.WHILLY_AGENT_CMD?.trim();
  const agentCmd =
    flag !== undefined && flag !== ""
      ? parseCmdTemplate(flag, "--agent-cmd")
      : fromEnv !== undefined && fromEnv !== ""
        ? parseCmdTemplate(fromEnv, "WHILLY_AGENT_CMD")
        : undefined;
  const probe = env.WHILLY_AGENT_PROBE_TIMEOUT?.trim();
  const probeTimeoutMs =
    probe === undefined || probe === ""
      ? DEFAULT_PROBE_TIMEOUT_MS
      : durationSetting(probe, "WHILLY_AGENT_PROBE_TIMEOUT", { unitMs: 1000, units: true });
  return { claude, agentCmd, probeTimeoutMs, env, cwd: options.cwd };
}
