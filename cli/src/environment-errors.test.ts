import { spawn } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  type CliResult,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runBin,
  scratchDir,
  WHILLY_BIN,
  writePlanFile,
} from "../../test/support/cli.js";

// The built `whilly` as a child process meeting faults of its environment: each is one `error:` line
// and a `hint:` line, with the documented exit code, and never a stack trace.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

const BOOTSTRAP = "environment-errors-bootstrap-0123";

function expectOneError(result: CliResult, code: number, error: string, hint: string): void {
  expect({ code: result.code, err: result.err.split("\n").filter((l) => !l.startsWith("whilly: ")) }).toEqual(
    {
      code,
      err: [`error: ${error}`, `hint: ${hint}`, ""],
    },
  );
}

describe("faults of the environment", () => {
  it("whilly server on a port another process holds: exit 2, naming address and port", async () => {
    const holder = await listen(createServer());
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await runBin(["server", "--port", String(port)], {
        cwd: makeRepo(template),
        env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }),
      });
      expect(result.out).toBe("");
      expect(result.code).toBe(2);
      // whilly server logs JSON lines on stderr, its startup failures included.
      const lines = result.err.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] ?? "")).toMatchObject({
        event: "server.failed",
        message: `cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE)`,
        hint: "another process listens there: stop it, or pick another --port (--port 0 takes any free one)",
      });
    } finally {
      holder.close();
    }
  });

  it("a file named .whilly where the store's directory goes: exit 1, naming it", async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, ".whilly"), "not a directory");
    const result = await runBin(["db", "migrate"], { cwd: repo, env: baseEnv() });
    expectOneError(
      result,
      1,
      `cannot create the directory ${join(repo, ".whilly")}: something with that name is in the way (EEXIST)`,
      "move or delete it, then run again",
    );
  });

  it("an embedded store Postgres cannot start on: exit 2, naming its directory", async () => {
    const repo = makeRepo();
    const dataDir = join(repo, ".whilly", "pgdata");
    mkdirSync(dataDir, { recursive: true });
    // Unreadable or damaged files look alike to PGlite; a bad PG_VERSION is one root cannot get past.
    writeFileSync(join(dataDir, "PG_VERSION"), "not a version\n");
    const result = await runBin(["plan", "list"], { cwd: repo, env: baseEnv() });
    expect(result.err).not.toContain("    at ");
    expectOneError(
      result,
      2,
      `cannot open the embedded store in ${dataDir}: Postgres could not start on its files`,
      `check that this user may read and write ${dataDir} and that its disk has free space (df -h); if it is not a whilly store or is damaged, move it aside and run again, or set WHILLY_DATABASE_URL to use a Postgres server`,
    );
  });

  it("a plan file path through a file, and one that is a directory: exit 1, nothing stored", async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, "notes"), "x");
    mkdirSync(join(repo, "plans.json"));
    const through = await runBin(["plan", "import", "notes/tasks.json"], { cwd: repo, env: baseEnv() });
    expectOneError(
      through,
      1,
      "cannot read plan file 'notes/tasks.json': a part of the path is not a directory (ENOTDIR)",
      "check the path: one of its directories is a file",
    );
    const directory = await runBin(["plan", "import", "plans.json"], { cwd: repo, env: baseEnv() });
    expectOneError(
      directory,
      1,
      "cannot read plan file 'plans.json': it is a directory (EISDIR)",
      "name a file, not a directory",
    );
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });

  it.skipIf(!existsSync("/dev/full"))(
    "stdout on a full disk (/dev/full): said once on stderr, exit 1",
    async () => {
      const result = await runWithStdout(["--help"], "/dev/full");
      expectOneError(
        result,
        1,
        "cannot write to standard output: no space left on the device (ENOSPC)",
        "free some space on that file system (df -h shows which one is full), then run again",
      );
    },
  );

  it("a current directory that was deleted: exit 1", async () => {
    const parent = scratchDir();
    const result = await runShell(
      `mkdir gone && cd gone && rmdir ../gone && exec "${process.execPath}" "${WHILLY_BIN}" plan list`,
      parent,
    );
    expectOneError(
      result,
      1,
      "cannot use the current directory: no such file or directory (ENOENT)",
      "it was deleted or moved: cd to a directory that exists, then run again",
    );
  });

  // chmod cannot stop root from reading a file, and these tests often run as root in containers.
  it("a plan file without read permission: exit 1", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    chmodSync(join(repo, "tasks.json"), 0o000);
    // Root reads anything: check as nobody, who may enter the repository but not read the file.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    if (uid !== undefined) chmodSync(repo, 0o755);
    const result = await runBin(["plan", "import", "tasks.json"], { cwd: repo, env: baseEnv(), uid });
    expectOneError(
      result,
      1,
      "cannot read plan file 'tasks.json': permission denied (EACCES)",
      "check the owner and mode of the path and its directories (ls -ld), or run as a user who may use them",
    );
  });
});

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/** Runs the built `whilly` with its stdout opened on `path`. */
function runWithStdout(argv: string[], path: string): Promise<CliResult> {
  const fd = openSync(path, "w");
  const child = spawn(process.execPath, [WHILLY_BIN, ...argv], {
    env: baseEnv() as NodeJS.ProcessEnv,
    stdio: ["ignore", fd, "pipe"],
  });
  closeSync(fd);
  return collect(child);
}

function runShell(script: string, cwd: string): Promise<CliResult> {
  const child = spawn("sh", ["-c", script], {
    cwd,
    env: baseEnv() as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child);
}

function collect(child: ReturnType<typeof spawn>): Promise<CliResult> {
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}
