import { resolve } from "node:path";
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
export type ServerSettings = ControlPlaneSettings & {
  /**
   * `WHILLY_WEB_DIR`: the built dashboard to serve at `/`, absolute; `undefined` for `@whilly/web`'s
   * `dist`. A directory without `index.html` is no error: `/` then answers 503 saying how to build it.
   */
  readonly webDir?: string | undefined;
};

/**
 * Validates the environment of `whilly server`: the variables of {@link readControlPlaneSettings} and
 * `WHILLY_WEB_DIR` (relative to the working directory). The
 * database URL is read with the CLI's other settings, since every command opens the store the same way.
 * @throws {ConfigurationError} naming every bad or missing variable.
 */
export function parseServerSettings(env: StringEnv): ServerSettings {
  const problems: SettingsProblem[] = [];
  const settings = readControlPlaneSettings(env, problems);
  throwProblems(problems, "");
  const webDir = env.WHILLY_WEB_DIR?.trim() || undefined;
  return { ...settings, webDir: webDir === undefined ? undefined : resolve(webDir) };
}
