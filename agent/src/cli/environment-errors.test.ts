import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built `whilly-worker` as a child process meeting faults of its environment: each is one `error:`
// line and a `hint:` line with the documented exit code, never a stack trace, and no task is claimed.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(root, "agent/bin/whilly-worker.js");
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-7" })}.sig`;

let scratch: string;
let controlPlane: Server;
let controlUrl: string;
const requests: string[] = [];
beforeAll(async () => {
  if (!existsSync(join(root, "agent/dist/cli/main.js"))) throw new Error("build first: npx tsc -b");
  scratch = mkdtempSync(join(tmpdir(), "whilly-worker-env-"));
  chmodSync(scratch, 0o755);
  controlPlane = createServer((req, res) => {
    requests.push(req.url ?? "");
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => controlPlane.listen(0, "127.0.0.1", resolve));
  controlUrl = `http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await new Promise<void>((resolve) => controlPlane.close(() => resolve()));
});

type Result = { code: number | null; out: string; err: string };

/** Runs the bin; `shell` runs it through `sh -c` with `$BIN` set, for redirections. */
function runWorker(
  args: readonly string[],
  options: { cwd?: string; uid?: number; shell?: string; env?: Record<string, string> } = {},
): Promise<Result> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", WHILLY_CONTROL_URL: controlUrl, BIN };
  const [command, argv] =
    options.shell === undefined ? [process.execPath, [BIN, ...args]] : ["sh", ["-c", options.shell]];
  const child = spawn(command, argv, {
    cwd: options.cwd ?? scratch,
    env: {
      ...env,
      WHILLY_WORKER_TOKEN: token,
      WHILLY_PLAN_ID: "demo",
      NODE: process.execPath,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

function expectOneError(result: Result, code: number, error: string, hint: string): void {
  expect({ code: result.code, err: result.err.split("\n") }).toEqual({
    code,
    err: [`error: ${error}`, `hint: ${hint}`, ""],
  });
}

const CREATE = "create it (a git checkout of the project the plan works on), or pass another --workdir";

describe("whilly-worker meeting faults of its environment", () => {
  it("a --workdir that is a file, missing, or through a file: exit 2 naming it, before any request", async () => {
    const file = join(scratch, "notes.txt");
    writeFileSync(file, "x");
    requests.length = 0;
    expectOneError(
      await runWorker(["--workdir", "notes.txt"]),
      2,
      `--workdir ${file} is not a directory`,
      "name the directory the agent works in (a git checkout of the project the plan works on), or pass another --workdir",
    );
    expectOneError(
      await runWorker(["--workdir", "checkout"]),
      2,
      `--workdir: cannot look at ${join(scratch, "checkout")}: no such file or directory (ENOENT)`,
      CREATE,
    );
    expectOneError(
      await runWorker(["--workdir", join(file, "sub")]),
      2,
      `--workdir: cannot look at ${join(file, "sub")}: a part of the path is not a directory (ENOTDIR)`,
      "check the path: one of its directories is a file; or pass another --workdir",
    );
    expect(requests).toEqual([]);
  });

  it("a --workdir this user may not enter: exit 2 naming it", async () => {
    const locked = join(scratch, "locked");
    mkdirSync(locked, { mode: 0o000 });
    chmodSync(locked, 0o000);
    // Root may enter anything: check as nobody, who may still read the worker's files.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    const result = await runWorker(["--workdir", locked], uid === undefined ? {} : { uid });
    expectOneError(
      result,
      2,
      `--workdir: cannot use ${locked}: permission denied (EACCES)`,
      "check the owner and mode of the path and its directories (ls -ld), or run as a user who may use them; or pass another --workdir",
    );
  });

  it("a CLAUDE_BIN that cannot be started: exit 2 naming it, before any request", async () => {
    const script = join(scratch, "claude.mjs");
    writeFileSync(script, "#!/usr/bin/env node\n", { mode: 0o644 });
    chmodSync(script, 0o644);
    requests.length = 0;
    const choose = "or set CLAUDE_BIN to the Claude Code program (claude)";
    expectOneError(
      await runWorker([], { env: { CLAUDE_BIN: script } }),
      2,
      `CLAUDE_BIN: cannot use ${script}: permission denied (EACCES)`,
      `make it executable (chmod +x ${script}), ${choose}`,
    );
    expectOneError(
      await runWorker([], { env: { CLAUDE_BIN: "bin/claude" } }),
      2,
      `CLAUDE_BIN: cannot look at ${join(scratch, "bin/claude")}: no such file or directory (ENOENT)`,
      `check the path (a relative one is taken from the agent's working directory, ${scratch}), ${choose}`,
    );
    expectOneError(
      await runWorker([], { env: { CLAUDE_BIN: "claude-not-installed", PATH: `${scratch}:/usr/bin:/bin` } }),
      2,
      `CLAUDE_BIN: no program 'claude-not-installed' on PATH (${scratch}:/usr/bin:/bin)`,
      `install Claude Code (npm install -g @anthropic-ai/claude-code), ${choose}`,
    );
    expect(requests).toEqual([]);
  });

  it("a current directory that was deleted: exit 1, one line", async () => {
    const gone = join(scratch, "gone");
    mkdirSync(gone);
    const result = await runWorker([], { cwd: gone, shell: 'rmdir "$PWD" && exec "$NODE" "$BIN" --once' });
    expectOneError(
      result,
      1,
      "cannot use the current directory: no such file or directory (ENOENT)",
      "it was deleted or moved: cd to a directory that exists, then run again",
    );
  });

  it.skipIf(!existsSync("/dev/full"))("a full disk under standard output: exit 1, one line", async () => {
    for (const args of ["--help", "--version", "register --help"]) {
      const result = await runWorker([], { shell: `exec "$NODE" "$BIN" ${args} > /dev/full` });
      expectOneError(
        result,
        1,
        "cannot write to standard output: no space left on the device (ENOSPC)",
        "free some space on that file system (df -h shows which one is full), then run again",
      );
    }
  });
});
