import {
  agentNameSchema,
  ConfigurationError,
  DEFAULT_AGENT,
  modelNameSchema,
  tagNameSchema,
} from "@whilly/core";
import type { AgentDefaults } from "./dispatch.js";
import { probeAgents } from "./probe.js";
import { type AgentRegistry, createAgentRegistry } from "./registry.js";
import { type AgentSettings, parseAgentSettings } from "./settings.js";
import type { AgentName } from "./types.js";

/** The agent flags of `whilly run` and `whilly-worker`, as given. */
export type AgentFlags = {
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
  readonly forceAgent?: string | undefined;
  readonly forceModel?: string | undefined;
  readonly agentCmd?: string | undefined;
  /** `--tags gpu,macos` (commas or blanks between tags). */
  readonly tags?: string | undefined;
};

/** The agents of a run, validated: the adapters, the run's defaults and its tags. */
export type AgentSetup = {
  readonly settings: AgentSettings;
  readonly registry: AgentRegistry;
  readonly defaults: AgentDefaults;
  readonly tags: readonly string[];
  /** The agent tasks run on when neither they nor their plan name one: `--force-agent`, `--agent`, else `claude`. */
  readonly defaultAgent: AgentName;
  /** True when `--agent` or `--force-agent` named it (it must then pass its start check). */
  readonly explicit: boolean;
};

/**
 * Checks the agent flags and builds the adapters ({@link parseAgentSettings}, {@link createAgentRegistry}).
 * @param env the process environment (`CLAUDE_BIN`, `WHILLY_MODEL`, `WHILLY_AGENT_CMD`, ...).
 * @param cwd where whilly runs: a relative `--agent-cmd` program is taken from it.
 * @throws {ConfigurationError} naming the flag and the fix: an agent whilly does not know (the known ones
 *   listed), `cmd` without `--agent-cmd`, a model or tag of the wrong shape, an invalid template.
 */
export function parseAgentFlags(
  flags: AgentFlags,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): AgentSetup {
  const settings = parseAgentSettings(env, { agentCmd: flags.agentCmd, cwd });
  const registry = createAgentRegistry(settings);
  const agent = checked(flags.agent, "--agent", agentNameSchema);
  const forceAgent = checked(flags.forceAgent, "--force-agent", agentNameSchema);
  if (agent !== undefined) registry.get(agent, "--agent");
  if (forceAgent !== undefined) registry.get(forceAgent, "--force-agent");
  const defaults: AgentDefaults = {
    agent,
    model: checked(flags.model, "--model", modelNameSchema),
    forceAgent,
    forceModel: checked(flags.forceModel, "--force-model", modelNameSchema),
  };
  const tags = (flags.tags ?? "").split(/[\s,]+/).filter((tag) => tag !== "");
  for (const tag of tags) checked(tag, "--tags", tagNameSchema);
  return {
    settings,
    registry,
    defaults,
    tags: [...new Set(tags)],
    defaultAgent: forceAgent ?? agent ?? DEFAULT_AGENT,
    explicit: forceAgent !== undefined || agent !== undefined,
  };
}

/** What {@link findWorkingAgents} found: the agents to advertise, and a line on each one left out. */
export type WorkingAgents = { readonly agents: readonly AgentName[]; readonly notes: readonly string[] };

/**
 * The agents this machine can run, checked at start all at once with each adapter's start check
 * ({@link probeAgents}, `WHILLY_AGENT_PROBE_TIMEOUT` each). Notes name the agents left out, but not one
 * whose program is simply not installed and whose variable (`CODEX_BIN`, ...) is unset. The default agent, when no flag named it
 * (`claude`), is advertised without that check: its program was checked already, as before there were
 * several agents. An agent `--agent` or `--force-agent` named must pass.
 * @throws {ConfigurationError} when the named agent does not start, with its adapter's install hint.
 */
export async function findWorkingAgents(
  setup: AgentSetup,
  options: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly cwd: string;
    /**
     * Check only these agents (and the default one): a run that knows its plan need not start every
     * CLI on the machine (Gemini CLI's `--version` takes seconds). All configured ones when undefined.
     */
    readonly only?: ReadonlySet<AgentName> | undefined;
    /**
     * No task runs on the default agent (each names its own): when no flag named that default, it
     * is not assumed, and is checked only when `only` names it, like any other.
     */
    readonly defaultUnused?: boolean | undefined;
  },
): Promise<WorkingAgents> {
  const unused = options.defaultUnused === true && !setup.explicit;
  const assumed = setup.explicit || unused ? undefined : setup.defaultAgent;
  const wanted = (name: AgentName) =>
    options.only === undefined || options.only.has(name) || (name === setup.defaultAgent && !unused);
  const probed = setup.registry.adapters.filter((a) => a.name !== assumed && wanted(a.name));
  const found = await probeAgents(probed, {
    env: options.env,
    cwd: options.cwd,
    timeoutMs: setup.settings.probeTimeoutMs,
  });
  if (setup.explicit) {
    const failed = found.failures.find((f) => f.agent === setup.defaultAgent);
    if (failed !== undefined) {
      const adapter = setup.registry.get(setup.defaultAgent);
      const flag = setup.defaults.forceAgent === undefined ? "--agent" : "--force-agent";
      throw new ConfigurationError(`${flag} ${setup.defaultAgent} does not start here: ${failed.reason}`, {
        hint: adapter.unavailableHints.install,
      });
    }
  }
  const working = new Set(found.working);
  if (assumed !== undefined) working.add(assumed);
  const agents = setup.registry.adapters.map((a) => a.name).filter((name) => working.has(name));
  // An agent nobody set up (its variable unset, its usual program not installed) is left out silently,
  // unless the plan names it (`only`): then the user is told why, and how to set it up.
  const named = (agent: AgentName) => options.only?.has(agent) === true;
  const notes = found.failures
    .filter((f) => !f.missing || isSetUp(setup, f.agent, options.env) || named(f.agent))
    .map((f) => {
      const hint = f.missing && !isSetUp(setup, f.agent, options.env) ? unavailableHint(setup, f.agent) : "";
      return `agent ${f.agent} left out: ${f.reason}${hint}`;
    });
  // A name the plan gives that no adapter here answers to: `cmd` without its command, an unknown agent.
  for (const agent of options.only ?? []) {
    if (setup.registry.adapters.some((a) => a.name === agent)) continue;
    try {
      setup.registry.get(agent, "the plan's agent");
    } catch (error) {
      const { message, hint } = error as ConfigurationError;
      notes.push(`agent ${agent} left out: ${message}${hint === undefined ? "" : `; ${hint}`}`);
    }
  }
  return { agents, notes };
}

/** `; <install hint>` of the adapter named `agent`, for a note. */
function unavailableHint(setup: AgentSetup, agent: AgentName): string {
  const adapter = setup.registry.adapters.find((a) => a.name === agent);
  return adapter === undefined ? "" : `; ${adapter.unavailableHints.install}`;
}

/** True when the user set the agent up: its program's variable (`CODEX_BIN`) is set, or it is the generic command. */
function isSetUp(
  setup: AgentSetup,
  agent: AgentName,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const adapter = setup.registry.adapters.find((a) => a.name === agent);
  if (adapter === undefined) return false;
  return agent === "cmd" || (env[adapter.binVariable] ?? "").trim() !== "";
}

function checked(
  value: string | undefined,
  flag: string,
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } },
): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const result = schema.safeParse(value.trim());
  if (result.success) return value.trim();
  throw new ConfigurationError(`${flag} '${value}' is not ${result.error?.issues[0]?.message ?? "valid"}`, {
    hint: `fix ${flag}, or leave it out`,
  });
}
