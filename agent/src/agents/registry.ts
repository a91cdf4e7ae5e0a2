import { ConfigurationError } from "@whilly/core";
import { createClaudeAdapter } from "./claude/index.js";
import { createCmdAdapter } from "./cmd/index.js";
import { createCodexAdapter } from "./codex/index.js";
import { createGeminiAdapter } from "./gemini/index.js";
import type { AgentSettings } from "./settings.js";
import type { AgentAdapter, AgentName } from "./types.js";

/** Builds one adapter from the settings; `undefined` when it is not configured here (`cmd` without a template). */
export type AdapterFactory = (settings: AgentSettings) => AgentAdapter | undefined;

/**
 * Every agent whilly knows, by the name plans and flags use. This is the one place an adapter is
 * registered: add its factory here (docs/agents.md#adding-an-adapter).
 */
export const ADAPTER_FACTORIES: Readonly<Record<AgentName, AdapterFactory>> = {
  claude: (settings) => createClaudeAdapter(settings.claude),
  // On merge with the Codex and Gemini CLI adapters (agent/src/agents/codex, agent/src/agents/gemini):
  codex: (settings) => createCodexAdapter(settings.env),
  gemini: (settings) => createGeminiAdapter(settings.env),
  cmd: (settings) =>
    settings.agentCmd === undefined
      ? undefined
      : createCmdAdapter({ template: settings.agentCmd, cwd: settings.cwd }),
};

/** The names in {@link ADAPTER_FACTORIES}. */
export const KNOWN_AGENTS: readonly AgentName[] = Object.keys(ADAPTER_FACTORIES);

/** The adapters configured on this machine, by name. */
export type AgentRegistry = {
  /** Every configured adapter, in {@link KNOWN_AGENTS} order. */
  readonly adapters: readonly AgentAdapter[];
  /**
   * The adapter named `name`.
   * @param flag what named it, for the message (`--agent`, `the task's agent`).
   * @throws {ConfigurationError} for a name whilly does not know (listing the known ones), or `cmd`
   *   without a template.
   */
  get(name: AgentName, flag?: string): AgentAdapter;
};

/**
 * The adapters {@link ADAPTER_FACTORIES} builds from `settings` (those not configured left out).
 * @throws {ConfigurationError} when a factory refuses its settings.
 */
export function createAgentRegistry(settings: AgentSettings): AgentRegistry {
  const adapters: AgentAdapter[] = [];
  for (const factory of Object.values(ADAPTER_FACTORIES)) {
    const adapter = factory(settings);
    if (adapter !== undefined) adapters.push(adapter);
  }
  return {
    adapters,
    get(name, flag = "the agent") {
      const adapter = adapters.find((a) => a.name === name);
      if (adapter !== undefined) return adapter;
      throw unknownAgent(name, flag);
    },
  };
}

/**
 * Refuses an agent name whilly has no adapter for, or `cmd` without its template.
 * @throws {ConfigurationError} naming `flag` and the fix.
 */
export function checkAgentName(name: AgentName, flag: string, registry: AgentRegistry): void {
  registry.get(name, flag);
}

function unknownAgent(name: AgentName, flag: string): ConfigurationError {
  if (name === "cmd" && Object.hasOwn(ADAPTER_FACTORIES, "cmd")) {
    return new ConfigurationError(`${flag} cmd needs the command to run`, {
      hint: "give it with --agent-cmd 'my-agent --prompt-file {prompt_file}' or WHILLY_AGENT_CMD",
    });
  }
  return new ConfigurationError(`${flag}: no agent named '${name}'`, {
    hint: `use one of ${KNOWN_AGENTS.join(", ")}`,
  });
}
