import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { StoreLocked } from "@whilly/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEmbeddedStore } from "./embedded.js";
import { lockPathFor } from "./store-lock.js";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const storeIndex = fileURLToPath(new URL("../index.ts", import.meta.url));
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * A real second process opening the store: `hold` opens it, writes a plan, says `open` and waits to be
 * killed; `try` opens and closes it. A refusal prints `code|ownerPid|message` and exits 3.
 */
const CHILD = `
import { openEmbeddedStore } from ${JSON.stringify(storeIndex)};
const [dataDir, mode] = process.argv.slice(2);
try {
  const store = await openEmbeddedStore(dataDir, { cacheDir: process.env.WHILLY_CACHE_DIR });
  if (mode === "hold") {
    await store.createPlan({ id: "from-child", name: "written before kill -9" });
    process.stdout.write("open\\n");
    setInterval(() => {}, 60_000);
  } else {
    await store.close();
    process.stdout.write("opened\\n");
  }
} catch (error) {
  process.stderr.write(\`\${error.code}|\${error.ownerPid}|\${error.message}\\n\`);
  process.exit(3);
}
`;

describe("openEmbeddedStore", () => {
  let dir: string;
  let dataDir: string;
  let script: string;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "whilly-embedded-"));
    dataDir = join(dir, ".whilly", "pgdata");
    script = join(dir, "child.mts");
    writeFileSync(script, CHILD);
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  function startChild(mode: "hold" | "try") {
    const child = spawn(
      process.execPath,
      ["--import", tsxLoader, "--conditions=source", script, dataDir, mode],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const said = (line: string) =>
      new Promise<void>((resolve, reject) => {
        child.stdout.on("data", () => stdout.includes(line) && resolve());
        child.on("exit", () => reject(new Error(`child exited before '${line}': ${stderr}`)));
      });
    return { child, exited, said, output: () => ({ stdout, stderr }) };
  }

  it("migrates a new data directory, keeps data across opens, and refuses a second opener in this process", async () => {
    const store = await openEmbeddedStore(dataDir);
    try {
      await store.createPlan({ id: "p", name: "kept" });
      await expect(openEmbeddedStore(dataDir)).rejects.toMatchObject({
        code: "store_locked",
        ownerPid: process.pid,
      });
    } finally {
      await store.close();
    }
    expect(existsSync(lockPathFor(dataDir))).toBe(false);
    const reopened = await openEmbeddedStore(dataDir);
    try {
      expect((await reopened.getPlan("p"))?.name).toBe("kept");
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it("gives a second process a clear StoreLocked message naming this process", async () => {
    const store = await openEmbeddedStore(dataDir, { cacheDir: process.env.WHILLY_CACHE_DIR });
    try {
      const second = startChild("try");
      expect(await second.exited).toBe(3);
      const [code, pid, message] = second.output().stderr.trim().split("|");
      expect(code).toBe("store_locked");
      expect(Number(pid)).toBe(process.pid);
      expect(message).toContain(
        `the embedded store at ${dataDir} is in use by another whilly process (pid ${process.pid} on host '${hostname()}' (this one), since `,
      );
      expect(message).toContain(`; lock file ${lockPathFor(dataDir)})`);
      expect(await store.getPlan("p")).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 120_000);

  it("takes over the lock of a process killed with SIGKILL, keeping what it committed", async () => {
    const holder = startChild("hold");
    await holder.said("open");
    await expect(openEmbeddedStore(dataDir)).rejects.toBeInstanceOf(StoreLocked);
    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(lockPathFor(dataDir))).toBe(true);

    const store = await openEmbeddedStore(dataDir, { cacheDir: process.env.WHILLY_CACHE_DIR });
    try {
      expect((await store.getPlan("from-child"))?.name).toBe("written before kill -9");
    } finally {
      await store.close();
    }
  }, 180_000);
});
