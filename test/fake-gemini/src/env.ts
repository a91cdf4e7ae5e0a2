import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Options of {@link fakeGeminiEnv}. */
export type FakeGeminiEnvOptions = {
  /** The fake's URL (`FakeGemini.url`). */
  readonly baseUrl: string;
  /** A throwaway directory for HOME; the CLI's settings and state go to `<home>/.gemini`. */
  readonly home: string;
  /** `general.maxAttempts`: API attempts per turn; 1 fails on the first error. Default 1. */
  readonly maxAttempts?: number;
  /** `PATH` for the child; defaults to this process's PATH (the CLI needs node and a shell). */
  readonly path?: string;
  /** Extra variables, applied last. */
  readonly extra?: Readonly<Record<string, string>>;
  /** Extra top-level sections of `settings.json` (e.g. `model: {maxSessionTurns: 1}`), applied last. */
  readonly settings?: Readonly<Record<string, unknown>>;
};

/**
 * Prepares a throwaway HOME for running the real Gemini CLI against the fake and returns the child's
 * environment. Writes `<home>/.gemini/settings.json`: API-key auth (the CLI would otherwise take
 * `GOOGLE_GEMINI_BASE_URL` for a gateway login it refuses in headless mode), folder trust off (an
 * untrusted folder turns `--yolo` back into prompts), no usage statistics, telemetry or update checks
 * (nothing leaves loopback), and few API attempts so error paths end in seconds (the CLI waits 5 s,
 * doubling, between attempts). Nothing is inherited but PATH, so a caller's `GEMINI_API_KEY`,
 * `GOOGLE_API_KEY` or `GOOGLE_GENAI_USE_VERTEXAI` cannot change the run; `TMPDIR` is `<home>/tmp`, where
 * the CLI writes a report file for every API error. `GEMINI_CLI_NO_RELAUNCH` keeps
 * the CLI in one process (it re-spawns itself with a larger heap otherwise, about a second more).
 */
export function fakeGeminiEnv(options: FakeGeminiEnvOptions): Record<string, string> {
  const dir = join(options.home, ".gemini");
  const tmp = join(options.home, "tmp");
  mkdirSync(dir, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      maxAttempts: options.maxAttempts ?? 1,
    },
    ...options.settings,
  };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  return {
    PATH: options.path ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.home,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: tmp,
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    GEMINI_API_KEY: "fake-gemini-key",
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...options.extra,
  };
}
