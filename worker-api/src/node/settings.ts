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
  const problems: string[] = [];
  const settings = readControlPlaneSettings(env, problems);
  throwProblems(
    problems,
    "",
    "set WHILLY_WORKER_BOOTSTRAP_TOKEN to a long random secret (e.g. openssl rand -base64 32); durations are seconds unless named _MS",
  );
  return settings;
}
