import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrationsFolder } from "../migrations-folder.js";

/**
 * A new embedded store starts from a copy of a migrated empty one: PGlite's own first start (initdb
 * in WebAssembly, then every migration) costs some 5 s of CPU and 900 MB, a copy a second and 400 MB.
 * The copy is a gzipped tarball of a data directory, kept in a cache directory under a name that
 * changes with PGlite's version and with the migrations, so a stale one is never used.
 */
export type StoreTemplate = {
  /** The tarball's path: `<cache dir>/embedded-store-<key>.tar.gz`. */
  readonly file: string;
};

/**
 * The template for this PGlite and these migrations in `cacheDir`; `undefined` when the key cannot be
 * computed (an install without PGlite's package file): the store is then created without one.
 */
export function storeTemplate(cacheDir: string): StoreTemplate | undefined {
  try {
    const hash = createHash("sha256").update(pgliteVersion());
    for (const migration of readMigrationFiles({ migrationsFolder: migrationsFolder() }))
      hash.update(migration.hash);
    return { file: join(cacheDir, `embedded-store-${hash.digest("hex").slice(0, 16)}.tar.gz`) };
  } catch {
    return undefined;
  }
}

/** The template's bytes, or `undefined` when there is none yet (or it cannot be read). */
export function readTemplate(template: StoreTemplate): Blob | undefined {
  try {
    return new Blob([readFileSync(template.file)]);
  } catch {
    return undefined;
  }
}

/**
 * Keeps `client`'s data directory (just migrated, holding no plan) as the template. Written under a
 * temporary name and renamed, so two processes creating stores at once never leave half a file.
 * A cache that cannot be written only costs the next store its full start: never throws.
 */
export async function saveTemplate(client: PGlite, template: StoreTemplate): Promise<void> {
  const partial = `${template.file}.${process.pid}-${randomBytes(4).toString("hex")}.partial`;
  try {
    const tarball = await client.dumpDataDir("gzip");
    mkdirSync(dirname(template.file), { recursive: true, mode: 0o700 });
    writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()), { mode: 0o600 });
    renameSync(partial, template.file);
  } catch {
    rmSync(partial, { force: true });
  }
}

function pgliteVersion(): string {
  // The package's entry sits in dist/; its package.json one level up (the exports map hides it).
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
    name?: string;
    version?: string;
  };
  if (manifest.name !== "@electric-sql/pglite" || typeof manifest.version !== "string") {
    throw new Error("PGlite's package.json not found beside its entry");
  }
  return manifest.version;
}
