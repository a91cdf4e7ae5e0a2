import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ROOT, scratchDir } from "../support/cli.js";

/** The action's entry point, as action.yml names it. */
export const ACTION_MAIN = join(ROOT, "action", "main.mjs");

/** What one run of the action did: exit code, log (stdout and stderr) and its outputs. */
export type ActionRun = { code: number; log: string; outputs: Record<string, string> };

/**
 * Runs the action as GitHub does: `node action/main.mjs` with the inputs as `INPUT_<NAME>` variables,
 * the event as a JSON file at `GITHUB_EVENT_PATH`, and an empty `GITHUB_OUTPUT` file read back after.
 */
export function runAction(options: {
  env: Record<string, string>;
  event: { name: string; payload: unknown };
  inputs: Record<string, string>;
}): Promise<ActionRun> {
  const dir = scratchDir("whilly-action-");
  const eventPath = join(dir, "event.json");
  const outputPath = join(dir, "output");
  writeFileSync(eventPath, JSON.stringify(options.event.payload));
  writeFileSync(outputPath, "");
  const env: Record<string, string> = {
    ...options.env,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: options.event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_WORKSPACE: dir,
  };
  for (const [name, value] of Object.entries(options.inputs)) env[`INPUT_${name.toUpperCase()}`] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACTION_MAIN], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const outputs: Record<string, string> = {};
      for (const line of readFileSync(outputPath, "utf8").split("\n")) {
        const at = line.indexOf("=");
        if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
      }
      resolve({ code: code ?? -1, log, outputs });
    });
  });
}

/** GitHub's OIDC token endpoint, as a job sees it (`ACTIONS_ID_TOKEN_REQUEST_URL` and `_TOKEN`). */
export type TokenEndpoint = {
  readonly env: Record<string, string>;
  /** The audiences asked for, in order. */
  readonly audiences: string[];
  close(): Promise<void>;
};

/** Serves `token()` to a request carrying the request token, as GitHub's endpoint does. */
export async function startTokenEndpoint(token: () => Promise<string>): Promise<TokenEndpoint> {
  const bearer = "actions-request-token-0123456789";
  const audiences: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (request.headers.authorization !== `bearer ${bearer}`) {
      response.writeHead(401).end();
      return;
    }
    audiences.push(url.searchParams.get("audience") ?? "");
    token().then((value) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ value }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      ACTIONS_ID_TOKEN_REQUEST_URL: `http://127.0.0.1:${port}/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: bearer,
    },
    audiences,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An `issues: labeled` payload for issue `number` of acme/widgets, `label` just added. */
export function labeledEvent(number: number, label: string) {
  return {
    name: "issues",
    payload: {
      action: "labeled",
      label: { name: label },
      issue: { number, title: "Todo lists with due dates" },
      repository: { full_name: "acme/widgets" },
    },
  };
}
