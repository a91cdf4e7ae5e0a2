#!/usr/bin/env node
// Builds the web dashboard into web/dist: index.html and one hashed script and stylesheet, which the
// control plane serves at / (Node: worker-api's static handler; Workers: the [assets] of wrangler.toml).
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "dist");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: [join(here, "src/main.tsx")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  write: false,
  outdir: join(out, "assets"),
  loader: { ".css": "css" },
  legalComments: "none",
  logLevel: "warning",
});

const names = {};
for (const file of result.outputFiles) {
  const ext = file.path.endsWith(".css") ? "css" : "js";
  const hash = createHash("sha256").update(file.contents).digest("hex").slice(0, 10);
  const name = `app.${hash}.${ext}`;
  writeFileSync(join(out, "assets", name), file.contents);
  names[ext] = name;
}
const html = readFileSync(join(here, "src/index.html"), "utf8")
  .replace("%SCRIPT%", `/assets/${names.js}`)
  .replace("%STYLE%", names.css ? `<link rel="stylesheet" href="/assets/${names.css}">` : "");
writeFileSync(join(out, "index.html"), html);
// Workers Static Assets read their response headers from _headers (the security headers, caching).
copyFileSync(join(here, "headers"), join(out, "_headers"));
