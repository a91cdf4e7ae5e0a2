import { join } from "node:path";

/** Options of {@link fakeClaudeEnv}. */
export type FakeClaudeEnvOptions = {
  /** The fake's URL (`FakeAnthropic.url`). */
  readonly baseUrl: string;
  /** A throwaway directory for HOME; Claude Code's state goes to `<home>/.claude`. */
  readonly home: string;
  /** `CLAUDE_CODE_MAX_RETRIES`; 0 fails on the first API error. Default 1. */
  readonly maxRetries?: number;
  /** `API_TIMEOUT_MS`: how long the CLI waits for response headers. Default 30000. */
  readonly apiTimeoutMs?: number;
  /** `PATH` for the child; defaults to this process's PATH (the CLI needs node and a shell). */
  readonly path?: string;
  /** Extra variables, applied last. */
  readonly extra?: Readonly<Record<string, string>>;
};

/**
 * The environment for running the real Claude Code CLI against the fake, isolated as
 * claude-code-offline.md recommends: a fake key, the fake's base URL, config and HOME in a throwaway
 * directory (no user settings, `CLAUDE.md` or history leak in), no non-essential traffic (nothing leaves
 * loopback), short API timeouts and few retries so error paths end in seconds. Nothing is inherited but
 * PATH, so a caller's `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_MODEL` or `IS_SANDBOX` cannot change the run.
 */
export function fakeClaudeEnv(options: FakeClaudeEnvOptions): Record<string, string> {
  return {
    PATH: options.path ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: options.home,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-fake",
    CLAUDE_CONFIG_DIR: join(options.home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    API_TIMEOUT_MS: String(options.apiTimeoutMs ?? 30_000),
    CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS: "15000",
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries ?? 1),
    ...options.extra,
  };
}
