import { readDuration, type SettingsProblem, settingsError } from "@whilly/core";

/** How long one request to the control plane may take (ms) unless `WHILLY_CONNECT_TIMEOUT` says. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The per-request limit of a `--connect` command (ms): `WHILLY_CONNECT_TIMEOUT` (`30s`, `500ms`; a bare
 * number is seconds), else {@link DEFAULT_CONNECT_TIMEOUT_MS}.
 * @throws {ConfigurationError} naming the variable when its value is not a duration.
 */
export function connectTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const problems: SettingsProblem[] = [];
  const timeoutMs = readDuration(
    env,
    "WHILLY_CONNECT_TIMEOUT",
    { fallbackMs: DEFAULT_CONNECT_TIMEOUT_MS, unitMs: 1000, units: true },
    problems,
  );
  const bad = settingsError(problems);
  if (bad) throw bad;
  return timeoutMs;
}
