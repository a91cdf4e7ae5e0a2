import { InvalidInput, parseUsd } from "@whilly/core";

/**
 * Reads a budget in USD as `plan create --budget` and `plan budget` take it: a non-negative decimal
 * amount, e.g. `5.00`, at most six decimals kept (micro-dollars).
 * @param name how the user wrote the value, for the message: `--budget` or `<budget>`.
 * @returns micro-USD. @throws {InvalidInput} naming `name` (exit 1, as in whilly 4.x).
 */
export function parseBudget(raw: string, name: string): number {
  const micro = parseUsd(raw);
  // The one amount rule rounds to micro-dollars; a cap meant to be positive must not become 0 silently.
  if (micro === 0 && /[1-9]/.test(raw)) {
    throw new InvalidInput(name, `${name} '${raw}' rounds to $0.000000: whilly keeps six decimals`, {
      hint: "give at least 0.000001, or 0 to block every claim",
    });
  }
  if (micro === undefined) {
    throw new InvalidInput(name, `${name} must be a non-negative amount in USD, e.g. 5.00; got '${raw}'`, {
      hint: `a plain non-negative decimal number, without $ or exponent: 5, 5.00 or 0.25${name === "<budget>" ? "; none for unlimited" : ""}`,
    });
  }
  return micro;
}
