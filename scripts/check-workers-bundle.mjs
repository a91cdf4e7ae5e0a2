#!/usr/bin/env node
// Checks that the Workers build bundles: `wrangler deploy --dry-run` of wrangler.toml into a temporary
// directory, offline. The Worker runs without the nodejs_compat flag, so the bundle must import no
// node: module (wrangler only warns about one); both Durable Object classes must be exported.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineWranglerEnv, root, wranglerBin } from "./wrangler-env.mjs";

const work = mkdtempSync(join(tmpdir(), "whilly-workers-bundle-"));
let problem;
try {
  const outdir = join(work, "out");
  const result = spawnSync(wranglerBin, ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: root,
    env: offlineWranglerEnv(join(work, "xdg")),
    encoding: "utf8",
  });
  const bundle = join(outdir, "entry-workers.js");
  if (result.status !== 0 || !existsSync(bundle)) {
    process.stderr.write(`${result.stdout}\n${result.stderr}\n`);
    fail(`wrangler deploy --dry-run failed (exit ${result.status})`);
  }
  const code = readFileSync(bundle, "utf8");
  const nodeImports = new Set(code.match(/(?<=\bfrom\s*["']|\b(?:import|require)\(\s*["'])node:[\w/]+/g));
  if (nodeImports.size > 0) {
    fail(
      `the Worker imports ${[...nodeImports].join(", ")}; workerd has no Node built-ins without nodejs_compat`,
    );
  }
  for (const name of ["Coordinator", "EventBuffer"]) {
    if (!new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`).test(code)) fail(`the bundle does not export ${name}`);
  }
  const size = /Total Upload: ([^\n]+)/.exec(result.stdout)?.[1] ?? "?";
  console.log(`workers bundle ok (${size})`);
} catch (error) {
  problem = error instanceof Error ? error.message : String(error);
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (problem !== undefined) {
  console.error(`error: ${problem}`);
  process.exitCode = 1;
}

/** @param {string} message @returns {never} */
function fail(message) {
  throw new Error(message);
}
