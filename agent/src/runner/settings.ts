import { ConfigurationError, checkDuration, type DurationRange } from "@whilly/core";
import { z } from "zod";

/** The model whilly asks for when `WHILLY_MODEL` is not set. */
export const DEFAULT_CLAUDE_MODEL = "claude-opus-4-6";

/** `NO_PROXY` for the agent when a proxy is set: loopback only, so local tools and fakes stay direct. */
export const DEFAULT_NO_PROXY = "localhost,127.0.0.1,::1";

/**
 * Tools allowed by name when whilly runs as root outside a declared sandbox (see {@link ClaudePermissions}).
 * Claude Code 2.1.x offers these and more; read-only ones need no permission anyway, and anything not
 * listed is denied, which the attempt then reports as `permission_denied`.
 */
export const ROOT_ALLOWED_TOOLS: readonly string[] = [
  "Bash",
  "Edit",
  "Write",
  "Read",
  "Glob",
  "Grep",
  "NotebookEdit",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "Agent",
  "TaskOutput",
  "TaskStop",
];

/**
 * How the agent gets permission to use tools without a person to ask:
 * - `skip`: `--dangerously-skip-permissions` (whilly 4.x's default);
 * - `allowlist`: `--allowedTools <tools>`, used as root unless `IS_SANDBOX=1`, because Claude Code refuses
 *   the skip flag for root and whilly will not claim a sandbox on the user's behalf;
 * - `accept-edits`: `--permission-mode acceptEdits` (`WHILLY_CLAUDE_SAFE`): file edits only, other Bash
 *   commands are denied.
 */
export type ClaudePermissions = "skip" | "allowlist" | "accept-edits";

/** Everything the Claude Code runner reads from the environment, validated once. */
export type ClaudeSettings = {
  /** `CLAUDE_BIN`, else `claude` (found on PATH). */
  readonly claudeBin: string;
  /** `WHILLY_MODEL`, else {@link DEFAULT_CLAUDE_MODEL}; passed to `--model` as is. */
  readonly model: string;
  /** `WHILLY_CLAUDE_SAFE` is `1`, `true` or `yes`. */
  readonly safe: boolean;
  readonly permissions: ClaudePermissions;
  /** `WHILLY_CLAUDE_ALLOWED_TOOLS` (space or comma separated), else {@link ROOT_ALLOWED_TOOLS}; for `allowlist`. */
  readonly allowedTools: readonly string[];
  /** `WHILLY_CLAUDE_PROXY_URL`: set as `HTTPS_PROXY` in the agent's environment only. */
  readonly proxyUrl: string | undefined;
  /** `WHILLY_CLAUDE_NO_PROXY` when present (even empty), else {@link DEFAULT_NO_PROXY}; used with `proxyUrl`. */
  readonly noProxy: string;
  /** `WHILLY_CLAUDE_MAX_TURNS`: adds `--max-turns N` when set. */
  readonly maxTurns: number | undefined;
  /** How long a killed agent gets between SIGTERM and SIGKILL, ms (`WHILLY_CLAUDE_KILL_GRACE_MS`, default 5000). */
  readonly killGraceMs: number;
};

/** Time between SIGTERM and SIGKILL when `WHILLY_CLAUDE_KILL_GRACE_MS` is unset, ms. */
export const DEFAULT_KILL_GRACE_MS = 5000;

const TRUE_WORDS = new Set(["1", "true", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "no", ""]);

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const schema = z.object({
  CLAUDE_BIN: optionalText,
  WHILLY_MODEL: optionalText,
  WHILLY_CLAUDE_SAFE: optionalText,
  WHILLY_CLAUDE_PROXY_URL: optionalText.refine((v) => v === undefined || URL.canParse(v), "is not a URL"),
  WHILLY_CLAUDE_NO_PROXY: z.string().optional(),
  WHILLY_CLAUDE_ALLOWED_TOOLS: optionalText,
  WHILLY_CLAUDE_MAX_TURNS: optionalText,
  WHILLY_CLAUDE_KILL_GRACE_MS: optionalText,
  IS_SANDBOX: z.string().optional(),
});

/**
 * Reads and checks the runner's settings. This is the one place the runner reads the environment.
 * @param env the worker's environment (usually `process.env`).
 * @param host facts about this process; `isRoot` defaults to `process.getuid() === 0`.
 * @throws {ConfigurationError} naming the variable when a value is invalid.
 */
export function parseClaudeSettings(
  env: Readonly<Record<string, string | undefined>>,
  host: { readonly isRoot?: boolean } = {},
): ClaudeSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    throw new ConfigurationError(`${name} ${issue?.message ?? "is invalid"}`, {
      hint: `fix or unset ${name}`,
    });
  }
  const v = parsed.data;
  const maxTurns = v.WHILLY_CLAUDE_MAX_TURNS;
  const killGrace = v.WHILLY_CLAUDE_KILL_GRACE_MS;
  const isRoot = host.isRoot ?? process.getuid?.() === 0;
  const safeWord = v.WHILLY_CLAUDE_SAFE?.trim().toLowerCase();
  // A typo here would silently leave safe mode off, the less cautious choice, so only known words count.
  if (safeWord !== undefined && !TRUE_WORDS.has(safeWord) && !FALSE_WORDS.has(safeWord)) {
    throw new ConfigurationError(
      `WHILLY_CLAUDE_SAFE must be 1, true or yes (safe mode on) or 0, false or no (off); got '${v.WHILLY_CLAUDE_SAFE}'`,
      { hint: "e.g. WHILLY_CLAUDE_SAFE=1, or unset it" },
    );
  }
  const safe = safeWord !== undefined && TRUE_WORDS.has(safeWord);
  // Claude Code compares IS_SANDBOX with "1" exactly; "yes" or "true" do not count there, so not here.
  const sandbox = v.IS_SANDBOX === "1";
  const permissions: ClaudePermissions = safe ? "accept-edits" : isRoot && !sandbox ? "allowlist" : "skip";
  const allowedTools =
    v.WHILLY_CLAUDE_ALLOWED_TOOLS?.split(/[\s,]+/).filter((t) => t !== "") ?? ROOT_ALLOWED_TOOLS;
  return {
    claudeBin: v.CLAUDE_BIN ?? "claude",
    model: v.WHILLY_MODEL ?? DEFAULT_CLAUDE_MODEL,
    safe,
    permissions,
    allowedTools,
    proxyUrl: v.WHILLY_CLAUDE_PROXY_URL,
    noProxy: v.WHILLY_CLAUDE_NO_PROXY ?? DEFAULT_NO_PROXY,
    maxTurns:
      maxTurns === undefined ? undefined : wholeNumberSetting(maxTurns, "WHILLY_CLAUDE_MAX_TURNS", 999_999),
    killGraceMs:
      killGrace === undefined
        ? DEFAULT_KILL_GRACE_MS
        : durationSetting(killGrace, "WHILLY_CLAUDE_KILL_GRACE_MS", { unitMs: 1, minMs: 0 }),
  };
}

/**
 * One duration setting of the worker, checked as every whilly program checks its durations
 * ({@link checkDuration}: the bounds of a timer, no sign, exponent or hex).
 * @param name the flag and variable the message names, e.g. `--retry-budget (WHILLY_RETRY_BUDGET)`.
 * @param hint the next step printed with the message; by default, to fix the value or leave it out.
 * @returns milliseconds.
 * @throws {ConfigurationError} naming `name`, the range and the text given.
 */
export function durationSetting(text: string, name: string, range: DurationRange, hint?: string): number {
  const checked = checkDuration(text, name, range);
  if ("ms" in checked) return checked.ms;
  throw new ConfigurationError(checked.problem, {
    hint: hint ?? `fix ${name}, or leave it out for the default`,
  });
}

/**
 * One count setting of the worker: a whole number from 1 to `max`, in plain digits (no sign, leading
 * zero, exponent or hex).
 * @throws {ConfigurationError} naming `name`, the range and the text given.
 */
export function wholeNumberSetting(text: string, name: string, max: number): number {
  const value = Number(text);
  if (/^[1-9]\d*$/.test(text) && value <= max) return value;
  throw new ConfigurationError(`${name} must be a whole number from 1 to ${max}; got '${text}'`, {
    hint: `fix ${name}, or leave it out for the default`,
  });
}
