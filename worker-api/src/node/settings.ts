import type { SettingsProblem } from "@whilly/core";
import {
  type ControlPlaneSettings,
  MAX_CLAIM_WAIT_MS,
  readControlPlaneSettings,
  type StringEnv,
  throwProblems,
} from "../control-plane-settings.js";

export { MAX_CLAIM_WAIT_MS };

/** Settings of `whilly server`, read once from the environment. Durations are ms. */
export type ServerSettings = ControlPlaneSettings;

/**
 * Validates the environment of `whilly server`: the variables of {@link readControlPlaneSettings}. The
 * database URL is read with the CLI's other settings, since every command opens the store the same way.
 * @throws {ConfigurationError} naming every bad or missing variable.
 */
export function parseServerSettings(env: StringEnv): ServerSettings {
  const problems: SettingsProblem[] = [];
  const settings = readControlPlaneSettings(env, problems);
  throwProblems(problems, "");
  return settings;
}
