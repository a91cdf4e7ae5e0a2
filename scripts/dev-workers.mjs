#!/usr/bin/env node
// `npm run dev:workers [-- <wrangler dev flags>]`: the Workers build of the control plane on
// http://127.0.0.1:8787 (wrangler dev, offline), against a local Postgres. The Neon driver speaks
// Postgres over a WebSocket, so a local WebSocket-to-TCP proxy is started in front of the database.
//
// WHILLY_DATABASE_URL and WHILLY_WORKER_BOOTSTRAP_TOKEN come from the environment or from .dev.vars
// (wrangler's file for local secrets). Migrate the database first: `whilly db migrate`.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNeonWsProxy } from "./neon-ws-proxy.mjs";
import { offlineWranglerEnv, root, wranglerBin } from "./wrangler-env.mjs";

const devVars = readDevVars(join(root, ".dev.vars"));
const databaseUrl = process.env.WHILLY_DATABASE_URL || devVars.WHILLY_DATABASE_URL;
if (!databaseUrl) {
  console.error("error: WHILLY_DATABASE_URL is not set");
  console.error(
    "hint: export it or put it in .dev.vars, e.g. WHILLY_DATABASE_URL=postgres://postgres@127.0.0.1:5432/whilly",
  );
  process.exit(2);
}
const server = new URL(databaseUrl);
const proxy = await startNeonWsProxy({ allow: [`${server.hostname}:${server.port || "5432"}`] });
console.error(`neon websocket proxy on ${proxy.address} -> ${server.hostname}:${server.port || "5432"}`);

// Secrets go to wrangler in an env file (it shows their values as hidden), merged from .dev.vars and
// the WHILLY_* variables of this shell; the proxy address is a plain var.
const secrets = { ...devVars };
for (const [name, value] of Object.entries(process.env)) {
  if (name.startsWith("WHILLY_") && value) secrets[name] = value;
}
delete secrets.WHILLY_NEON_WS_PROXY;
const stateDir = join(root, ".wrangler");
mkdirSync(stateDir, { recursive: true });
const envFile = join(stateDir, `dev-secrets-${process.pid}.env`);
writeFileSync(
  envFile,
  Object.entries(secrets)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}\n`)
    .join(""),
  {
    mode: 0o600,
  },
);
const args = ["dev", "--env-file", envFile, "--var", `WHILLY_NEON_WS_PROXY:${proxy.address}`];
const child = spawn(wranglerBin, [...args, ...process.argv.slice(2)], {
  cwd: root,
  env: offlineWranglerEnv(join(stateDir, "xdg")),
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", async (code, signal) => {
  rmSync(envFile, { force: true });
  await proxy.close();
  process.exit(code ?? (signal ? 130 : 1));
});

/** The `NAME=value` lines of a .dev.vars file (quotes around the value removed), or none. */
function readDevVars(path) {
  if (!existsSync(path)) return {};
  const vars = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) vars[match[1]] = match[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}
