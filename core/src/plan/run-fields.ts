import { DEFAULT_MAX_ATTEMPTS, MAX_MAX_ATTEMPTS } from "../attempts/index.js";
import { fieldName } from "./issues.js";
import type { Report } from "./json-values.js";
import { show } from "./text.js";

const WHOLE_NUMBER = /^\s*\d+\s*$/;

/**
 * `max_attempts` of a plan or a task: a whole number from 1 to {@link MAX_MAX_ATTEMPTS}, as a JSON
 * number or a numeric string (`"3"`). Absent or `null` is `undefined` (the default applies).
 * @param of whose field it is: a task's falls back to its plan's, a plan's to the default.
 * @returns `null` when the value was reported as bad, so callers can tell "bad" from "absent".
 */
export function readMaxAttempts(
  value: unknown,
  of: "plan" | "task",
  report: Report,
): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && WHOLE_NUMBER.test(value)
        ? Number(value)
        : NaN;
  if (Number.isInteger(number) && number >= 1 && number <= MAX_MAX_ATTEMPTS) return number;
  const fallback =
    of === "plan" ? `the default, ${DEFAULT_MAX_ATTEMPTS}` : `the plan's, else ${DEFAULT_MAX_ATTEMPTS}`;
  report(
    ["max_attempts"],
    `'max_attempts' must be a whole number of attempts from 1 to ${MAX_MAX_ATTEMPTS}, e.g. 3; got ${show(value)} (leave it out for ${fallback})`,
  );
  return null;
}

/**
 * The plan's `verify`: one shell command (a string) or a list of them, each non-blank. Absent, `null`
 * or an empty list is `undefined` (no plan checks).
 * @returns `null` when the value was reported as bad.
 */
export function readVerify(value: unknown, report: Report): readonly string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  const commands = typeof value === "string" ? [value] : value;
  const example = `e.g. "npm test" or ["npm run lint", "npm test"]`;
  if (!Array.isArray(commands)) {
    report(["verify"], `'verify' must be a shell command or a list of them, ${example}; got ${show(value)}`);
    return null;
  }
  let ok = true;
  commands.forEach((command, index) => {
    if (typeof command === "string" && command.trim() !== "") return;
    ok = false;
    const path = typeof value === "string" ? ["verify"] : ["verify", index];
    report(path, `${fieldName(path)} must be a non-blank shell command, ${example}; got ${show(command)}`);
  });
  if (!ok) return null;
  return commands.length === 0 ? undefined : (commands as string[]).slice();
}

/**
 * The plan's `setup`: one non-blank shell command, run in each new worktree before the agent. Absent
 * or `null` is `undefined`.
 * @returns `null` when the value was reported as bad.
 */
export function readSetup(value: unknown, report: Report): string | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value.trim() !== "") return value;
  report(
    ["setup"],
    `'setup' must be a non-blank shell command, e.g. "npm ci"; got ${show(value)} (leave it out for no setup)`,
  );
  return null;
}
