import { isAbsolute, join, resolve } from "node:path";
import {
  ConfigurationError,
  checkControlUrl,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_LIMIT_BACKOFF_MAX_MS,
  DEFAULT_LIMIT_BACKOFF_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  secretValuesOf,
} from "@whilly/core";
import { z } from "zod";
import { type AgentSetup, parseAgentFlags } from "../agents/setup.js";
import { agentEnvOf, isWhillySecret } from "../runner/agent-env.js";
import {
  type ClaudeSettings,
  durationSetting,
  parseClaudeSettings,
  wholeNumberSetting,
} from "../runner/settings.js";
import { parseTrizSettings, type TrizSettings } from "../triz/settings.js";
import type { WorkerFlags } from "./args.js";
import { parseAttemptSettings, type WorkerAttemptSettings } from "./attempt-settings.js";
import { readTokenFile } from "./token-file.js";
import { workerIdFromToken } from "./worker-id.js";

/** Everything `whilly-worker` runs with, validated once at start. Durations are ms. */
export type WorkerSettings = WorkerAttemptSettings & {
  /** The control plane's base URL, without a trailing slash. */
  readonly controlUrl: string;
  /** The bearer sent on every request. */
  readonly token: string;
  /** What the user should hear before the worker starts, e.g. a token file others can read. */
  readonly warnings: readonly string[];
  readonly planId: string;
  readonly workerId: string;
  /** Where the worker id came from: a flag, `WHILLY_WORKER_ID`, or the token's `sub` claim. */
  readonly workerIdFrom: "flag" | "env" | "token";
  /** Stop after one finished task. */
  readonly once: boolean;
  readonly heartbeatIntervalMs: number;
  /**
   * How often the worker logs that its agent is still running, and that it is still waiting for a
   * ready task (ms). From `WHILLY_PROGRESS_INTERVAL` (s), default {@link DEFAULT_PROGRESS_INTERVAL_MS}.
   */
  readonly progressIntervalMs: number;
  /** Stop after this many claim requests; `undefined` is unbounded. */
  readonly maxIterations: number | undefined;
  /**
   * The agent's working directory, absolute: in a git clone each task gets a worktree of it
   * (docs/worker.md#branch-flow); outside git tasks run in it, in place.
   */
  readonly workdir: string;
  /**
   * Where running attempts are recorded (absolute): `--state-dir`, else `WHILLY_STATE_DIR`, else
   * `$XDG_STATE_HOME/whilly-worker` (`~/.local/state/whilly-worker`), outside the agent's work tree so
   * the agent never commits a record. A worker started on it ends what attempts of a killed worker left
   * running; workers sharing it leave each other's running attempts alone.
   */
  readonly stateDir: string;
  /**
   * How long one request to the control plane is retried (ms) before the worker gives up and exits 1;
   * `undefined` retries for ever, so a control-plane restart never ends a long-running worker.
   */
  readonly retryBudgetMs: number | undefined;
  /**
   * After a provider limit that named no reset time, the worker claims nothing for this long (ms),
   * doubled per limit in a row. From `WHILLY_LIMIT_BACKOFF`, default 60 s.
   */
  readonly limitBackoffMs: number;
  /** The longest such pause, reset time or not (ms). From `WHILLY_LIMIT_BACKOFF_MAX`, default 6 h. */
  readonly limitBackoffMaxMs: number;
  readonly claude: ClaudeSettings;
  /** The failure analysis after a FAIL: `WHILLY_TRIZ_ENABLED`, `WHILLY_TRIZ_TIMEOUT` (docs/triz.md). */
  readonly triz: TrizSettings;
  /** The agents: adapters, `--agent`/`--model`/`--force-*` defaults and `--tags`. */
  readonly agents: AgentSetup;
  /** git's environment: the worker's without whilly's credentials; git's own stay, to fetch and push. */
  readonly gitEnv: Readonly<Record<string, string | undefined>>;
  /** The agent's environment: the worker's, without whilly's credentials and git's (`isKeptFromAgent`). */
  readonly agentEnv: Readonly<Record<string, string | undefined>>;
  /**
   * Values hidden in everything the worker keeps or prints of the agent's output and of errors: the
   * token, and the environment's secrets (variables named KEY, TOKEN, SECRET or PASSWORD, URL passwords).
   */
  readonly secrets: readonly string[];
};

/**
 * Default retry budget of a worker told when to stop (`--once`, `--max-iterations`): a run that is meant
 * to end must not hang on a control plane that is gone. Other workers retry for ever unless given one.
 */
export const DEFAULT_BOUNDED_RETRY_BUDGET = "60s";

/** A flag, or else its environment variable; blank counts as absent. */
export type Source = { readonly flag: string; readonly env: string };

const text = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const schema = z.object({
  connect: text,
  token: text,
  plan: text,
  workerId: text,
  heartbeatInterval: text,
  progressInterval: text,
  maxIterations: text,
  workdir: text,
  stateDir: text,
  retryBudget: text,
});

/**
 * Validates the command line and environment of `whilly-worker`. Flags win over environment variables.
 * Required values are checked in the order connect, token, plan (docs/worker.md). The worker id is
 * `--worker-id`, else `WHILLY_WORKER_ID`, else the `sub` claim of a per-worker JWT bearer; when both an
 * explicit id and a claim exist they must agree, since the control plane would refuse every request.
 * @param env the process environment; the one place the worker reads it.
 * @param cwd resolves a relative `--workdir` and is the default one.
 * @throws {ConfigurationError} naming the flag and its environment variable, with a hint.
 */
export function parseWorkerSettings(
  flags: WorkerFlags,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): WorkerSettings {
  const raw = schema.parse({
    connect: flags.connect ?? env.WHILLY_CONTROL_URL,
    token: flags.token ?? env.WHILLY_WORKER_TOKEN,
    plan: flags.plan ?? env.WHILLY_PLAN_ID,
    workerId: flags.workerId ?? env.WHILLY_WORKER_ID,
    heartbeatInterval: flags.heartbeatInterval ?? env.WHILLY_HEARTBEAT_INTERVAL,
    progressInterval: env.WHILLY_PROGRESS_INTERVAL,
    maxIterations: flags.maxIterations,
    workdir: flags.workdir,
    stateDir: flags.stateDir ?? env.WHILLY_STATE_DIR,
    retryBudget: flags.retryBudget ?? env.WHILLY_RETRY_BUDGET,
  });
  const connect = parseControlUrl(
    requiredSetting(raw.connect, { flag: "--connect", env: "WHILLY_CONTROL_URL" }),
  );
  const { token, warning } = workerToken(raw.token, flags.token !== undefined, flags.tokenFile, cwd);
  const planId = requiredSetting(raw.plan, { flag: "--plan", env: "WHILLY_PLAN_ID" });
  const { workerId, workerIdFrom } = resolveWorkerId(raw.workerId, flags.workerId !== undefined, token);
  const maxIterationCount = maxIterations(raw.maxIterations);
  const bounded = flags.once || maxIterationCount !== undefined;
  const attempts = parseAttemptSettings(flags);
  const gitEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !isWhillySecret(name)));
  const workdir =
    raw.workdir === undefined ? cwd : isAbsolute(raw.workdir) ? raw.workdir : resolve(cwd, raw.workdir);
  return {
    controlUrl: connect,
    token,
    warnings: warning === undefined ? [] : [warning],
    planId,
    workerId,
    workerIdFrom,
    once: flags.once,
    heartbeatIntervalMs: heartbeatMs(raw.heartbeatInterval),
    progressIntervalMs: progressMs(raw.progressInterval),
    maxIterations: maxIterationCount,
    workdir,
    stateDir: raw.stateDir === undefined ? defaultStateDir(env, workdir) : resolve(cwd, raw.stateDir),
    ...attempts,
    retryBudgetMs: retryBudgetMs(raw.retryBudget ?? (bounded ? DEFAULT_BOUNDED_RETRY_BUDGET : undefined)),
    ...limitBackoff(env),
    claude: parseClaudeSettings(env),
    triz: parseTrizSettings(env),
    agents: parseAgentFlags(flags, env, cwd),
    gitEnv,
    agentEnv: agentEnvOf(gitEnv),
    secrets: [token, ...secretValuesOf(env)],
  };
}

/** `$XDG_STATE_HOME/whilly-worker`, else `$HOME/.local/state/whilly-worker`, else `<workdir>/.whilly`. */
function defaultStateDir(env: Readonly<Record<string, string | undefined>>, workdir: string): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, "whilly-worker");
  const home = env.HOME?.trim();
  if (home && isAbsolute(home)) return join(home, ".local", "state", "whilly-worker");
  return join(workdir, ".whilly");
}

/**
 * A required value, given by a flag or its environment variable.
 * @param command the command whose `--help` the hint points to.
 * @throws {ConfigurationError} naming both when neither was given.
 */
export function requiredSetting(
  value: string | undefined,
  source: Source,
  command = "whilly-worker",
): string {
  if (value !== undefined) return value;
  throw new ConfigurationError(`missing ${source.flag} (or ${source.env})`, {
    hint: `pass ${source.flag} or set ${source.env}; ${command} --help shows every flag`,
  });
}

/**
 * The control plane's URL from `--connect` (or `WHILLY_CONTROL_URL`), without trailing slashes.
 * @throws {ConfigurationError} unless it is an http(s) URL without credentials, query or fragment
 *   ({@link checkControlUrl}); the message never shows a password.
 */
export function parseControlUrl(value: string): string {
  const checked = checkControlUrl(value);
  if (checked.ok) return checked.url;
  throw new ConfigurationError(`--connect (WHILLY_CONTROL_URL) ${checked.problem}`, { hint: checked.hint });
}

/**
 * The bearer: `--token`, else the file `--token-file` names, else `WHILLY_WORKER_TOKEN`.
 * @throws {ConfigurationError} for both flags at once, or none of the three.
 */
function workerToken(
  token: string | undefined,
  fromFlag: boolean,
  tokenFile: string | undefined,
  cwd: string,
): { token: string; warning?: string | undefined } {
  if (fromFlag && tokenFile !== undefined) {
    throw new ConfigurationError("--token and --token-file were both given", {
      hint: "keep --token-file: a token on the command line shows in `ps` to every user of the machine",
    });
  }
  if (tokenFile !== undefined && tokenFile.trim() !== "") return readTokenFile(tokenFile.trim(), cwd);
  if (token !== undefined) return { token };
  throw new ConfigurationError("missing --token (or WHILLY_WORKER_TOKEN)", {
    hint: "set WHILLY_WORKER_TOKEN or pass --token-file FILE (a --token value shows in `ps`); whilly-worker --help shows every flag",
  });
}

function resolveWorkerId(
  explicit: string | undefined,
  fromFlag: boolean,
  token: string,
): { workerId: string; workerIdFrom: WorkerSettings["workerIdFrom"] } {
  const owner = workerIdFromToken(token);
  if (explicit === undefined) {
    if (owner !== undefined) return { workerId: owner, workerIdFrom: "token" };
    throw new ConfigurationError("no worker id: the token does not say which worker it belongs to", {
      hint: "pass --worker-id (or set WHILLY_WORKER_ID) to the id this token acts for; a per-worker token from `whilly-worker register` carries its id and needs neither",
    });
  }
  const source = fromFlag ? "--worker-id" : "WHILLY_WORKER_ID";
  if (explicit.length > 256) throw new ConfigurationError(`${source} is longer than 256 characters`);
  if (owner !== undefined && owner !== explicit) {
    throw new ConfigurationError(
      `${source} '${explicit}' is not the worker this token was issued for ('${owner}')`,
      {
        hint: `drop ${source} to act as '${owner}', or use the token registered for '${explicit}'`,
      },
    );
  }
  return { workerId: explicit, workerIdFrom: fromFlag ? "flag" : "env" };
}

function heartbeatMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_HEARTBEAT_INTERVAL_MS;
  return durationSetting(value, "--heartbeat-interval (WHILLY_HEARTBEAT_INTERVAL)", { unitMs: 1000 });
}

/** `WHILLY_LIMIT_BACKOFF` and `WHILLY_LIMIT_BACKOFF_MAX`: `90s`, `10m`, or a bare number of seconds. */
function limitBackoff(env: Readonly<Record<string, string | undefined>>) {
  const read = (name: string, fallbackMs: number) => {
    const text = env[name]?.trim();
    return text ? durationSetting(text, name, { unitMs: 1000, units: true }) : fallbackMs;
  };
  const limitBackoffMs = read("WHILLY_LIMIT_BACKOFF", DEFAULT_LIMIT_BACKOFF_MS);
  const limitBackoffMaxMs = Math.max(
    read("WHILLY_LIMIT_BACKOFF_MAX", DEFAULT_LIMIT_BACKOFF_MAX_MS),
    limitBackoffMs,
  );
  return { limitBackoffMs, limitBackoffMaxMs };
}

function progressMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PROGRESS_INTERVAL_MS;
  return durationSetting(value, "WHILLY_PROGRESS_INTERVAL", { unitMs: 1000 });
}

function maxIterations(value: string | undefined): number | undefined {
  return value === undefined ? undefined : wholeNumberSetting(value, "--max-iterations", 999_999_999);
}

function retryBudgetMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return durationSetting(
    value,
    "--retry-budget (WHILLY_RETRY_BUDGET)",
    { unitMs: 1000, units: true },
    "it bounds how long the worker keeps retrying an unreachable control plane",
  );
}
