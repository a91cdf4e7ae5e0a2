import { ConfigurationError } from "./errors.js";

/**
 * One bad setting found while reading an environment: what is wrong (naming the variable, its allowed
 * values and what was given) and what to do about that one problem. Readers collect them so a program
 * reports every bad variable at once.
 */
export type SettingsProblem = { readonly message: string; readonly hint: string };

/**
 * The one error for every problem found: the messages joined with `; ` after `prefix`, and as hint
 * the distinct hints of those problems in order, each once, then `extraHint` (advice that holds for
 * any problem of this program, e.g. where its settings are kept).
 * @returns `undefined` when there is no problem.
 */
export function settingsError(
  problems: readonly SettingsProblem[],
  options: { prefix?: string | undefined; extraHint?: string | undefined } = {},
): ConfigurationError | undefined {
  if (problems.length === 0) return undefined;
  const hints = [...new Set([...problems.map((p) => p.hint), options.extraHint ?? ""])].filter(Boolean);
  return new ConfigurationError(`${options.prefix ?? ""}${problems.map((p) => p.message).join("; ")}`, {
    hint: hints.join("; "),
  });
}
