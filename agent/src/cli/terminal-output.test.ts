import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built `whilly-worker` printing text it did not write (its flags, a server's replies): control
// characters come out as escapes, never raw, while the token on stdout stays exact.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(root, "agent/bin/whilly-worker.js");
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3LTEifQ.c2ln";
const TITLE = "h\u001b]0;x\u0007";

let server: Server;
let url: string;
beforeAll(async () => {
  if (!existsSync(join(root, "agent/dist/cli/main.js"))) throw new Error("build first: npx tsc -b");
  server = createServer((req, res) => {
    if (req.url === "/workers/register") {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ worker_id: "w-\u009b1", token: TOKEN }));
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error_code: "not_found", detail: "no \u001b[2Jsuch plan", task_id: null }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function runWorker(args: readonly string[]) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (err += chunk));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, out, err })),
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("whilly-worker's output on a terminal", () => {
  it("register: escapes the hostname and worker id on stderr, prints the token exactly", async () => {
    const result = await runWorker([
      "register",
      "--connect",
      url,
      "--bootstrap-token",
      "b",
      "--hostname",
      TITLE,
    ]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(`${TOKEN}\n`);
    expect(result.err).toBe("whilly-worker: registered worker 'w-\\u009b1' (host h\\u001b]0;x\\u0007)\n");
  });

  it("register --json: the JSON stays valid and carries the same values", async () => {
    const result = await runWorker(["register", "--connect", url, "--bootstrap-token", "b", "--json"]);
    expect(result.out).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(result.out)).toEqual({ worker_id: "w-\u009b1", token: TOKEN });
  });

  it("escapes a server's error detail and a bad flag's value in error lines", async () => {
    const worker = await runWorker(["--connect", url, "--token", TOKEN, "--plan", "p\u001b[31m", "--once"]);
    expect(worker.code).not.toBe(0);
    expect(worker.err).not.toMatch(RAW_CONTROL);
    const flag = await runWorker([
      "--connect",
      url,
      "--token",
      TOKEN,
      "--plan",
      "p",
      "--task-timeout",
      "\u001b[2J",
    ]);
    expect(flag.code).toBe(2);
    expect(flag.err).not.toMatch(RAW_CONTROL);
    expect(flag.err).toContain("\\u001b[2J");
  });
});
