import { secretValuesOf } from "@whilly/core";
import { isKeptFromAgent } from "./agent-env.js";
import type { ClaudeSettings } from "./settings.js";

/**
 * The command line for one attempt (docs/agent.md#the-command-line): `[bin, <permission flags>,
 * --output-format, stream-json, --verbose, --model, <model>, [--max-turns, N], [--resume, <session id>],
 * -p, --, <prompt>]`. stream-json prints one event per line as the agent works (`--print` accepts it only
 * with `--verbose`), so progress and stalls can be seen while it runs. The prompt is one argument, never
 * passed through a shell; `--` keeps a prompt that starts with `-` from being read as an option. Linux
 * limits one argument to 128 KiB, so a longer prompt fails to start (`spawn_failed`, E2BIG).
 * @param options.resumeSessionId continue this session (`--resume`); Claude Code keeps sessions per
 *   working directory, so only a run in the session's own directory finds it.
 */
export function claudeArgv(
  settings: ClaudeSettings,
  prompt: string,
  options: { readonly resumeSessionId?: string | undefined } = {},
): string[] {
  const argv = [settings.claudeBin, ...permissionFlags(settings)];
  argv.push("--output-format", "stream-json", "--verbose", "--model", settings.model);
  if (settings.maxTurns !== undefined) argv.push("--max-turns", String(settings.maxTurns));
  if (options.resumeSessionId !== undefined) argv.push("--resume", options.resumeSessionId);
  argv.push("-p", "--", prompt);
  return argv;
}

/** The flags for {@link ClaudeSettings.permissions}. */
export function permissionFlags(settings: ClaudeSettings): string[] {
  switch (settings.permissions) {
    case "accept-edits":
      return ["--permission-mode", "acceptEdits"];
    case "allowlist":
      return ["--allowedTools", settings.allowedTools.join(" ")];
    case "skip":
      return ["--dangerously-skip-permissions"];
  }
}

/**
 * The agent's environment: the given one (unset entries and credentials dropped: whilly's and git's, see
 * `isKeptFromAgent`) plus, with a proxy configured, `HTTPS_PROXY` and `NO_PROXY`, which override
 * inherited values. The input is never changed, so the proxy reaches the agent only.
 */
export function claudeEnv(
  env: Readonly<Record<string, string | undefined>>,
  settings: ClaudeSettings,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !isKeptFromAgent(key)) out[key] = value;
  }
  if (settings.proxyUrl !== undefined) {
    out.HTTPS_PROXY = settings.proxyUrl;
    out.NO_PROXY = settings.noProxy;
  }
  return out;
}

/**
 * Values to keep out of every outcome and log: the credentials in the agent's environment (variables
 * named KEY, TOKEN, SECRET or PASSWORD, URL passwords such as a proxy's; see {@link secretValuesOf}).
 */
export function secretsOf(env: Readonly<Record<string, string>>): string[] {
  return secretValuesOf(env);
}
