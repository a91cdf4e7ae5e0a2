import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Finds `drizzle/migrations` (the `@whilly/schema` package's migrations) from source and from the built
 * `dist` alike: first through the package's resolved entry (`dist/schema.js` → `../migrations`), then
 * relative to this module, which sits three levels below the repository root in `src/store/` and in
 * `dist/store/` both.
 * @throws {Error} when neither place holds `meta/_journal.json` (a broken install).
 */
export function migrationsFolder(): string {
  const candidates: string[] = [];
  try {
    const entry = createRequire(import.meta.url).resolve("@whilly/schema");
    candidates.push(join(dirname(entry), "..", "migrations"));
  } catch {
    // The schema package is not built yet (tests run from source); the relative path below covers it.
  }
  candidates.push(fileURLToPath(new URL("../../../drizzle/migrations", import.meta.url)));
  const found = candidates.find((dir) => existsSync(join(dir, "meta", "_journal.json")));
  if (found === undefined) {
    throw new Error(`whilly's migrations are missing; looked in ${candidates.join(" and ")}`);
  }
  return found;
}
