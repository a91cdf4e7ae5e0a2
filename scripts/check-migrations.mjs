#!/usr/bin/env node
// Fails when drizzle/src/schema.ts changed without a migration: drizzle-kit generates into a temporary
// copy of drizzle/migrations, and any file it writes there is a migration nobody committed. Needs no
// database. Then `drizzle-kit check` verifies the committed snapshots agree with each other.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const committed = join(root, "drizzle", "migrations");
const schema = join(root, "drizzle", "src", "schema.ts");
const drizzleKit = join(root, "node_modules", ".bin", "drizzle-kit");

const work = mkdtempSync(join(tmpdir(), "whilly-migrations-"));
try {
  const out = join(work, "migrations");
  cpSync(committed, out, { recursive: true });
  const config = join(work, "drizzle.config.json");
  // drizzle-kit reads `out` relative to its working directory, so it runs inside the copy.
  writeFileSync(config, JSON.stringify({ dialect: "postgresql", schema, out: "./migrations" }));

  const before = listFiles(out);
  const generate = run(["generate", "--config", config, "--name", "uncommitted_schema_change"]);
  if (generate.status !== 0) fail("drizzle-kit generate failed", generate);
  const added = listFiles(out).filter((file) => !before.includes(file));
  if (added.length > 0) {
    console.error(
      `error: drizzle/src/schema.ts has changes that no migration in drizzle/migrations covers.\n` +
        `drizzle-kit would write: ${added.join(", ")}\n` +
        `hint: run \`npx drizzle-kit generate --name <what_it_does>\` at the repository root and commit the result.`,
    );
    process.exit(1);
  }

  // A rename makes drizzle-kit ask which column became which; without a terminal it prints the error
  // and still exits 0, so anything but its "no changes" line is a change nobody generated.
  if (!/No schema changes/.test(`${generate.stdout}${generate.stderr}`)) {
    fail(
      "drizzle/src/schema.ts has changes that drizzle-kit could not turn into a migration unattended " +
        "(a rename needs an answer)\nhint: run `npx drizzle-kit generate --name <what_it_does>` in a terminal",
      generate,
    );
  }

  const check = run(["check", "--config", config]);
  if (check.status !== 0) fail("drizzle-kit check found inconsistent migration snapshots", check);
  console.log(`migrations: ${relative(root, committed)} matches drizzle/src/schema.ts`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

function run(args) {
  return spawnSync(drizzleKit, args, {
    cwd: work,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
}

function listFiles(dir) {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

function fail(message, result) {
  console.error(`error: ${message}`);
  console.error(`${result.stdout ?? ""}${result.stderr ?? ""}`.trim());
  process.exit(1);
}
