// The whilly GitHub Action (action.yml): runs `whilly forge intake owner/repo/N --connect URL --json`
// in the runner for the issue the event names, with the admin token or the job's OIDC token, and sets
// the outputs plan-id, created and tasks-count. It never runs the agent on a task: workers do.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ActionError,
  booleanInput,
  eventTarget,
  input,
  mask,
  requestOidcToken,
  setOutputs,
} from "./github.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** How long the OIDC token request may take, ms. */
const OIDC_TIMEOUT_MS = 30_000;

/**
 * Runs the action with `env` (the runner's environment).
 * @returns {Promise<number>} the exit code: 0, or the intake's (1 failed, 2 configuration).
 */
export async function run(env) {
  const label = input(env, "label") || "whilly-pending";
  const target = eventTarget(env, label);
  if ("skip" in target) {
    process.stdout.write(`whilly: ${target.skip}; nothing to do\n`);
    setOutputs(env, { "plan-id": "", created: "false", "tasks-count": "0" });
    return 0;
  }
  const controlUrl = input(env, "control-url");
  if (!/^https?:\/\//.test(controlUrl)) {
    throw new ActionError(
      `input control-url must be an http(s) URL; got '${controlUrl}'`,
      "e.g. control-url: https://whilly.example.com",
    );
  }
  const dryRun = booleanInput(env, "dry-run");
  const childEnv = await credentials(env);
  const apiKey = input(env, "anthropic-api-key");
  if (apiKey) {
    mask(apiKey);
    childEnv.ANTHROPIC_API_KEY = apiKey;
  } else if (!dryRun && !env.ANTHROPIC_API_KEY) {
    throw new ActionError(
      "input anthropic-api-key is empty",
      "pass anthropic-api-key from a secret such as secrets.ANTHROPIC_API_KEY",
    );
  }
  // The runner has no Claude Code of its own: the action checkout's pinned one, unless CLAUDE_BIN names one.
  const claude = join(ROOT, "node_modules", ".bin", "claude");
  if (!childEnv.CLAUDE_BIN && existsSync(claude)) childEnv.CLAUDE_BIN = claude;
  const githubToken = input(env, "github-token");
  if (githubToken) childEnv.GH_TOKEN = githubToken;

  const ref = `${target.repo}/${target.number}`;
  const args = ["forge", "intake", ref, "--connect", controlUrl, "--label", label, "--json"];
  for (const [name, flag] of [
    ["budget-usd", "--budget"],
    ["model", "--model"],
  ]) {
    if (input(env, name)) args.push(flag, input(env, name));
  }
  if (dryRun) args.push("--dry-run");
  process.stdout.write(`whilly: forge intake ${ref} → ${controlUrl}${dryRun ? " (dry run)" : ""}\n`);
  const { code, out } = await runCli(args, childEnv, env.GITHUB_WORKSPACE || process.cwd());
  if (code !== 0) {
    process.stdout.write(
      `::error::whilly forge intake ${ref} failed (exit ${code}); its messages are above\n`,
    );
    return code;
  }
  const result = JSON.parse(out);
  setOutputs(env, {
    "plan-id": result.plan_id,
    created: String(result.created === true),
    "tasks-count": String(result.tasks_count ?? 0),
  });
  process.stdout.write(`whilly: plan '${result.plan_id}' ${result.outcome} (${result.tasks_count} tasks)\n`);
  return 0;
}

/**
 * The CLI's environment: the runner's without the inputs and the OIDC request token, with the admin
 * token or a fresh OIDC token (exactly one must be asked for).
 */
async function credentials(env) {
  const childEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith("INPUT_") && !key.startsWith("ACTIONS_ID_TOKEN_REQUEST_")) {
      childEnv[key] = value;
    }
  }
  delete childEnv.WHILLY_ADMIN_TOKEN;
  delete childEnv.WHILLY_OIDC_TOKEN;
  const admin = input(env, "admin-token");
  const oidc = booleanInput(env, "oidc");
  if (admin && oidc) throw new ActionError("give admin-token or oidc: true, not both");
  if (!admin && !oidc) {
    throw new ActionError(
      "the control plane needs a credential",
      "give admin-token (from a secret such as secrets.WHILLY_ADMIN_TOKEN), or oidc: true",
    );
  }
  if (admin) {
    mask(admin);
    childEnv.WHILLY_ADMIN_TOKEN = admin;
  } else {
    const token = await requestOidcToken(env, input(env, "oidc-audience") || "whilly", OIDC_TIMEOUT_MS);
    mask(token);
    childEnv.WHILLY_OIDC_TOKEN = token;
  }
  return childEnv;
}

/**
 * Runs the whilly CLI: `WHILLY_ACTION_CLI` (a path to `whilly.js`), else the action checkout's built
 * `cli/bin/whilly.js`. stderr (progress) goes to the job's log as it comes; stdout is the JSON result.
 */
function runCli(args, env, cwd) {
  const bin = env.WHILLY_ACTION_CLI || join(ROOT, "cli", "bin", "whilly.js");
  if (!existsSync(bin)) {
    throw new ActionError(
      `the whilly CLI is not built at ${bin}`,
      "build the action's checkout (npm ci && npx tsc -b) or set WHILLY_ACTION_CLI",
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run(process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      const hint = error instanceof ActionError && error.hint ? ` (${error.hint})` : "";
      process.stdout.write(`::error::${error.message}${hint}\n`);
      process.exitCode = 1;
    },
  );
}
