/**
 * Variables a generation run passes on by name: where the process runs (PATH, HOME, locale, temp
 * directory, certificates) and how to reach the model (proxies, Claude Code's own timeouts).
 */
export const MODEL_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TERM",
  "XDG_CONFIG_HOME",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "CLAUDE_CONFIG_DIR",
  "API_TIMEOUT_MS",
  "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS",
  "MAX_THINKING_TOKENS",
];

/**
 * Prefixes of the variables passed on besides: the model's key, URL and model names (`ANTHROPIC_*`),
 * Claude Code's settings and login token (`CLAUDE_CODE_*`), its opt-outs (`DISABLE_*`), the locale.
 */
export const MODEL_ENV_PREFIXES: readonly string[] = ["ANTHROPIC_", "CLAUDE_CODE_", "DISABLE_", "LC_"];

/**
 * The environment of a generation run: only {@link MODEL_ENV_NAMES} and {@link MODEL_ENV_PREFIXES}
 * from `env`, so the model's own key is the one secret it holds (no database URL, no whilly or GitHub
 * token, no cloud credentials), plus `HTTPS_PROXY` and `NO_PROXY` when whilly's agent proxy is set
 * (`WHILLY_CLAUDE_PROXY_URL`). The input is not changed.
 */
export function modelEnv(
  env: Readonly<Record<string, string | undefined>>,
  proxy: { readonly url: string | undefined; readonly noProxy: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (MODEL_ENV_NAMES.includes(name) || MODEL_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      out[name] = value;
    }
  }
  if (proxy.url !== undefined) {
    out.HTTPS_PROXY = proxy.url;
    out.NO_PROXY = proxy.noProxy;
  }
  return out;
}
