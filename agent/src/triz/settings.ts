import { isAbsolute, resolve } from "node:path";
import { ConfigurationError } from "@whilly/core";
import type { GenerationAgent } from "../generate/ask-model.js";
import { type ClaudeSettings, durationSetting } from "../runner/settings.js";
import { DEFAULT_TRIZ_TIMEOUT_MS } from "./ask-contradiction.js";

/** The failure analysis's settings (docs/triz.md#on-a-failed-task), the same for `whilly-worker` and `whilly run`. */
export type TrizSettings = {
  /** `WHILLY_TRIZ_ENABLED`: `1`, `true` or `yes` turns the analysis on; off by default. */
  readonly enabled: boolean;
  /** `WHILLY_TRIZ_TIMEOUT` (seconds, or `90s`, `2m`): the most one question may take, ms; default 25 s. */
  readonly timeoutMs: number;
};

const ON = new Set(["1", "true", "yes"]);
const OFF = new Set(["0", "false", "no", ""]);

/**
 * Reads `WHILLY_TRIZ_ENABLED` and `WHILLY_TRIZ_TIMEOUT`.
 * @throws {ConfigurationError} naming the variable: an on/off word it does not know (a typo must not
 *   silently leave it off), or a timeout that is not a duration.
 */
export function parseTrizSettings(env: Readonly<Record<string, string | undefined>>): TrizSettings {
  const word = (env.WHILLY_TRIZ_ENABLED ?? "").trim().toLowerCase();
  if (!ON.has(word) && !OFF.has(word)) {
    throw new ConfigurationError(
      `WHILLY_TRIZ_ENABLED must be 1, true or yes (on) or 0, false or no (off); got '${env.WHILLY_TRIZ_ENABLED}'`,
      { hint: "e.g. WHILLY_TRIZ_ENABLED=1, or unset it to leave the failure analysis off" },
    );
  }
  const timeout = env.WHILLY_TRIZ_TIMEOUT?.trim();
  return {
    enabled: ON.has(word),
    timeoutMs: timeout
      ? durationSetting(timeout, "WHILLY_TRIZ_TIMEOUT", { unitMs: 1000, units: true })
      : DEFAULT_TRIZ_TIMEOUT_MS,
  };
}

/**
 * How the failure analysis asks: Claude Code as the runner's settings say (`CLAUDE_BIN`, `WHILLY_MODEL`,
 * the proxy and kill grace), in its tool-less answer mode, within `timeoutMs`.
 * @param options.env the agent's environment; only the model's variables reach it (see `askModel`).
 * @param options.cwd resolves a relative `CLAUDE_BIN`, since the question runs in a scratch directory.
 */
export function trizAgentOf(
  claude: ClaudeSettings,
  options: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly secrets: readonly string[];
    readonly timeoutMs: number;
    readonly cwd: string;
  },
): GenerationAgent {
  const bin = claude.claudeBin;
  return {
    claudeBin: bin.includes("/") && !isAbsolute(bin) ? resolve(options.cwd, bin) : bin,
    model: claude.model,
    env: options.env,
    proxyUrl: claude.proxyUrl,
    noProxy: claude.noProxy,
    timeoutMs: options.timeoutMs,
    killGraceMs: claude.killGraceMs,
    secrets: options.secrets,
  };
}
