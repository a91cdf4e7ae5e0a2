import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The bin runs the built fake (dist/), which the root build (`tsc -b`) produces before the tests run.
const bin = fileURLToPath(new URL("../bin/fake-anthropic.js", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../dist/cli.js", import.meta.url)));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fake-anthropic-bin-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

describe.runIf(built)("fake-anthropic bin", () => {
  it("serves a script file, writes the port file, and stops on SIGTERM", async () => {
    const script = join(dir, "script.json");
    const portFile = join(dir, "port");
    await writeFile(script, JSON.stringify({ default: { turns: [{ text: "hi from the bin" }] } }));
    const child = spawn(process.execPath, [bin, "--script", script, "--port", "0", "--port-file", portFile], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = exitOf(child);
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    while (!stdout.includes("\n")) await new Promise((r) => setTimeout(r, 20));
    const port = Number(await readFile(portFile, "utf8"));
    expect(stdout).toBe(`listening on http://127.0.0.1:${port}\n`);
    const res = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({
        model: "m",
        tools: [{ name: "Bash" }],
        messages: [{ role: "user", content: "x" }],
      }),
    });
    expect(((await res.json()) as { content: { text: string }[] }).content[0]?.text).toBe("hi from the bin");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("exits 2 with a message for a bad script", async () => {
    const script = join(dir, "bad.json");
    await writeFile(script, JSON.stringify({ tasks: { A: { turns: "no" } } }));
    const child = spawn(process.execPath, [bin, "--script", script], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain("tasks.A.turns");
  });
});
