import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A worker machine installs only the worker: `npm pack` core and agent, install the two tarballs alone
// in an empty directory, and check that the install closure holds no control-plane package and that
// the `whilly-worker` bin runs from the packed files (dist, not the workspace's TypeScript sources).
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
const FORBIDDEN = ["hono", "@hono/node-server", "drizzle-orm", "pg", "@electric-sql/pglite", "jose"];

type Packed = { name: string; filename: string; files: { path: string }[] };

let scratch: string;
let install: string;
let packed: Packed[];

beforeAll(async () => {
  if (!existsSync(join(ROOT, "agent/dist/cli/main.js")) || !existsSync(join(ROOT, "core/dist/index.js"))) {
    execFileSync("npx", ["tsc", "-b", "core", "agent"], { cwd: ROOT, stdio: "pipe" });
  }
  scratch = mkdtempSync(join(tmpdir(), "whilly-worker-pack-"));
  const { stdout } = await run(
    "npm",
    ["pack", "--workspace", "core", "--workspace", "agent", "--pack-destination", scratch, "--json"],
    { cwd: ROOT },
  );
  packed = JSON.parse(stdout) as Packed[];
  install = join(scratch, "install");
  execFileSync("mkdir", ["-p", install]);
  writeFileSync(join(install, "package.json"), JSON.stringify({ name: "worker-box", private: true }));
  const tarballs = packed.map((p) => join(scratch, p.filename));
  // undici and zod come from the npm cache when it has them; the workspace is never consulted.
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...tarballs], { cwd: install });
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Every package directory under `node_modules`, scoped ones as `@scope/name`, nested ones included. */
function installedPackages(dir: string): string[] {
  const names: string[] = [];
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue;
      const scoped = entry.startsWith("@");
      for (const name of scoped ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry]) {
        names.push(name);
        walk(join(modules, name, "node_modules"));
      }
    }
  };
  walk(join(dir, "node_modules"));
  return names;
}

describe("the packed worker", () => {
  it("ships the bin and the built code, without sources or tests", () => {
    const agent = packed.find((p) => p.name === "@whilly/agent");
    const paths = agent?.files.map((f) => f.path) ?? [];
    expect(paths).toContain("bin/whilly-worker.js");
    expect(paths).toContain("dist/cli/main.js");
    expect(paths).toContain("dist/index.js");
    expect(paths.filter((p) => p.startsWith("src/") || /\.test\./.test(p))).toEqual([]);
  });

  it("installs with undici and zod only: no hono, drizzle, pg, PGlite or jose", () => {
    const installed = installedPackages(install);
    expect(installed).toEqual(expect.arrayContaining(["@whilly/core", "@whilly/agent", "undici", "zod"]));
    expect(installed.filter((name) => FORBIDDEN.includes(name))).toEqual([]);
    expect(installed.sort()).toEqual(["@whilly/agent", "@whilly/core", "undici", "zod"]);
  });

  it("runs whilly-worker --help, --version, and refuses a missing --connect with exit 2", async () => {
    const bin = join(install, "node_modules", ".bin", "whilly-worker");
    const help = await run(bin, ["--help"], { cwd: install });
    expect(help.stdout).toContain("Usage: whilly-worker --connect URL --token BEARER --plan ID");
    const version = await run(bin, ["--version"], { cwd: install });
    expect(version.stdout).toBe("whilly-worker 0.1.0\n");
    const missing = await run(bin, [], { cwd: install, env: { PATH: process.env.PATH } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing).toMatchObject({ code: 2 });
    expect((missing as { stderr: string }).stderr).toContain("missing --connect (or WHILLY_CONTROL_URL)");
  });

  it("resolves the package to its built files under plain Node", async () => {
    const script =
      "const m = await import('@whilly/agent'); const p = import.meta.resolve('@whilly/agent');" +
      "console.log(typeof m.workerMain, typeof m.runWorkerLoop, p.includes('/dist/'));";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: install });
    expect(stdout.trim()).toBe("function function true");
  });
});
