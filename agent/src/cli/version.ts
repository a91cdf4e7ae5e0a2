import { readFileSync } from "node:fs";

/**
 * The agent package's version, read from its `package.json` (two levels up from both `src/cli` and
 * `dist/cli`, so it is right in the workspace and in an installed package alike).
 */
export function workerVersion(): string {
  try {
    const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
}
