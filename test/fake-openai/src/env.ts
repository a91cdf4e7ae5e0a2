import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The variable the fake provider's key is read from (any value works). */
export const FAKE_OPENAI_KEY_VARIABLE = "FAKE_OPENAI_API_KEY";

/** Options of {@link fakeCodexEnv}. */
export type FakeCodexEnvOptions = {
  /** The fake's URL (`FakeOpenAI.url`, ending in `/v1`). */
  readonly baseUrl: string;
  /** A throwaway directory: HOME, with CODEX_HOME at `<home>/.codex` holding the generated config.toml. */
  readonly home: string;
  /** The config's `model`; default `gpt-5-codex`. */
  readonly model?: string;
  /** The provider's `request_max_retries` and `stream_max_retries`; default 0, so error paths end at once. */
  readonly maxRetries?: number;
  /** The provider's `stream_idle_timeout_ms`; default 10000. */
  readonly streamIdleTimeoutMs?: number;
  /** `PATH` for the child; defaults to this process's PATH (Codex's launcher needs node). */
  readonly path?: string;
  /** Extra variables, applied last. */
  readonly extra?: Readonly<Record<string, string>>;
};

/**
 * Writes a Codex config that points the CLI at the fake (`model_provider` `fake`, `wire_api`
 * `responses`, the key from {@link FAKE_OPENAI_KEY_VARIABLE}) into `<home>/.codex/config.toml`, and
 * returns the environment for running the real Codex CLI against it. Nothing is inherited but PATH, so
 * a caller's `OPENAI_API_KEY` or `CODEX_HOME` cannot change the run.
 * @throws the file system's error when the directory cannot be written.
 */
export function fakeCodexEnv(options: FakeCodexEnvOptions): Record<string, string> {
  const codexHome = join(options.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const retries = options.maxRetries ?? 0;
  const toml = [
    `model = ${JSON.stringify(options.model ?? "gpt-5-codex")}`,
    'model_provider = "fake"',
    "check_for_update_on_startup = false",
    "",
    "[model_providers.fake]",
    'name = "fake-openai"',
    `base_url = ${JSON.stringify(options.baseUrl)}`,
    'wire_api = "responses"',
    `env_key = "${FAKE_OPENAI_KEY_VARIABLE}"`,
    `request_max_retries = ${retries}`,
    `stream_max_retries = ${retries}`,
    `stream_idle_timeout_ms = ${options.streamIdleTimeoutMs ?? 10_000}`,
    // Plugins and apps sync from GitHub at start: off, so nothing leaves loopback and a run takes ~1 s.
    "",
    "[features]",
    "plugins = false",
    "apps = false",
    "",
  ].join("\n");
  writeFileSync(join(codexHome, "config.toml"), toml);
  return {
    PATH: options.path ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.home,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    CODEX_HOME: codexHome,
    [FAKE_OPENAI_KEY_VARIABLE]: "sk-fake-openai",
    ...options.extra,
  };
}
