import { isAbsolute, resolve } from "node:path";
import { ConfigurationError, DEFAULT_AGENT } from "@whilly/core";
import { createAgentRegistry } from "../agents/registry.js";
import { parseAgentSettings } from "../agents/settings.js";
import type { AgentAdapter } from "../agents/types.js";
import { durationSetting, parseClaudeSettings } from "../runner/settings.js";
import type { GenerationAgent } from "./ask-model.js";

/** The most one generation call may take when `WHILLY_GENERATE_TIMEOUT` is unset: 15 minutes. */
export const DEFAULT_GENERATE_TIMEOUT_MS = 15 * 60_000;

/**
 * How generation runs the agent, read from the environment as the worker reads its runner settings:
 * `CLAUDE_BIN`, `WHILLY_MODEL` (unless `model` is given), `WHILLY_CLAUDE_PROXY_URL`,
 * `WHILLY_CLAUDE_NO_PROXY`, `WHILLY_CLAUDE_KILL_GRACE_MS`, and `WHILLY_GENERATE_TIMEOUT` (the most
 * one call may take: seconds, or with a unit such as `90s` or `20m`; default 15 minutes).
 * @param options.secrets values to hide besides the environment's own (a database password).
 * @param options.cwd the caller's directory: a relative `CLAUDE_BIN` path (`./bin/claude`) is taken from
 *   it, since the agent runs in a scratch directory.
 * With `agent` (not `claude`), that agent's adapter answers instead, with its own default model.
 * @throws {ConfigurationError} naming the variable or flag when a value is invalid.
 */
export function generationAgentFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: {
    readonly model?: string | undefined;
    readonly secrets?: readonly string[] | undefined;
    readonly cwd?: string | undefined;
    /** `--agent`: another agent than Claude Code, one whose adapter answers. */
    readonly agent?: string | undefined;
    /** `--agent-cmd`: the `cmd` agent's command (else `WHILLY_AGENT_CMD`). */
    readonly agentCmd?: string | undefined;
  } = {},
): GenerationAgent {
  const settings = parseClaudeSettings(env);
  const adapter = answeringAdapter(env, options);
  const timeout = env.WHILLY_GENERATE_TIMEOUT?.trim();
  const bin = settings.claudeBin;
  return {
    claudeBin: bin.includes("/") && !isAbsolute(bin) ? resolve(options.cwd ?? ".", bin) : bin,
    model: options.model ?? adapter?.defaultModel ?? settings.model,
    env,
    proxyUrl: settings.proxyUrl,
    noProxy: settings.noProxy,
    timeoutMs:
      timeout === undefined || timeout === ""
        ? DEFAULT_GENERATE_TIMEOUT_MS
        : durationSetting(timeout, "WHILLY_GENERATE_TIMEOUT", { unitMs: 1000, units: true }),
    killGraceMs: settings.killGraceMs,
    secrets: options.secrets,
    ...(adapter === undefined ? {} : { adapter }),
  };
}

/**
 * The adapter `--agent` names, when it is not Claude Code (which the caller builds from `CLAUDE_BIN`).
 * @throws {ConfigurationError} for an agent whilly does not know, or one that gives no tool-less answer.
 */
function answeringAdapter(
  env: Readonly<Record<string, string | undefined>>,
  options: {
    readonly agent?: string | undefined;
    readonly agentCmd?: string | undefined;
    readonly cwd?: string | undefined;
  },
): AgentAdapter | undefined {
  const name = options.agent?.trim();
  if (name === undefined || name === "" || name === DEFAULT_AGENT) return undefined;
  const settings = parseAgentSettings(env, { agentCmd: options.agentCmd, cwd: options.cwd ?? process.cwd() });
  const adapter = createAgentRegistry(settings).get(name, "--agent");
  if (adapter.answers) return adapter;
  throw new ConfigurationError(`--agent ${name} cannot write a plan: it gives no tool-less answer`, {
    hint: "use an agent that answers (claude), or drop --agent",
  });
}
