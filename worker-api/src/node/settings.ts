import { statSync } from "node:fs";
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
   * `dist`. A directory without `index.html`, or none at all, is no error: `/` then answers 503 saying
   * how to build it; a file is (see {@link parseServerSettings}).
   */
  readonly webDir?: string | undefined;
};

/**
 * Validates the environment of `whilly server`: the variables of {@link readControlPlaneSettings} and
 * `WHILLY_WEB_DIR` (relative to the working directory; a file there is refused). The
 * database URL is read with the CLI's other settings, since every command opens the store the same way.
 * @throws {ConfigurationError} naming every bad or missing variable.
 */
export function parseServerSettings(env: StringEnv): ServerSettings {
  const problems: SettingsProblem[] = [];
  const settings = readControlPlaneSettings(env, problems);
  const given = env.WHILLY_WEB_DIR?.trim() || undefined;
  const webDir = given === undefined ? undefined : resolve(given);
  const notDir = webDir === undefined ? undefined : notADirectory(webDir);
  if (notDir !== undefined) {
    problems.push({
      message: `WHILLY_WEB_DIR must be a directory holding the built dashboard; got '${webDir}', ${notDir}`,
      hint: "point WHILLY_WEB_DIR at a built web/dist (npm run build -w @whilly/web), or unset it",
    });
  }
  throwProblems(problems, "");
  return { ...settings, webDir };
}

/**
 * Why `path` cannot be the dashboard's directory, or `undefined` when it can: it is a directory, or
 * nothing is there yet (the server then answers `/` with 503 saying how to build it).
 */
function notADirectory(path: string): string | undefined {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat === undefined || stat.isDirectory() ? undefined : "which is a file";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOTDIR"
      ? "a part of which is a file"
      : `which cannot be read (${code ?? String(error)})`;
  }
}
