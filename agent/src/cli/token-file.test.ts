import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@whilly/core";
import { afterAll, describe, expect, it } from "vitest";
import { parseWorkerArgs } from "./args.js";
import { workerMain } from "./main.js";
import { parseWorkerSettings } from "./settings.js";

// The worker's token from a file, so it is never on a command line that `ps` shows to everyone.
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const tokenFor = (sub: string) => `${part({ alg: "HS256" })}.${part({ sub })}.sig`;
const dir = mkdtempSync(join(tmpdir(), "whilly-token-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tokenFile(name: string, text: string, mode: number): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

const parse = (argv: string[], env: Record<string, string> = {}) =>
  parseWorkerSettings(parseWorkerArgs(["--connect", "http://cp:8000", "--plan", "p", ...argv]), env, dir);

function problem(argv: string[], env: Record<string, string> = {}): ConfigurationError {
  try {
    parse(argv, env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("--token-file", () => {
  it("reads the token (trimmed) and takes the worker id from it; a file of yours alone gives no warning", () => {
    tokenFile("mine", `  ${tokenFor("w-file")}\n`, 0o600);
    const settings = parse(["--token-file", "mine"], { WHILLY_WORKER_TOKEN: tokenFor("w-env") });
    expect(settings).toMatchObject({ token: tokenFor("w-file"), workerId: "w-file", warnings: [] });
  });

  it("warns, and still runs, when others may read the file", () => {
    const file = tokenFile("open", tokenFor("w-open"), 0o644);
    expect(parse(["--token-file", file])).toMatchObject({
      token: tokenFor("w-open"),
      warnings: [
        `the token file ${file} is open to other users (mode 0644); make it yours alone: chmod 600 ${file}`,
      ],
    });
  });

  it("refuses a missing or empty file and --token beside it, naming the fix", () => {
    expect(problem(["--token-file", "nowhere"])).toMatchObject({
      message: `--token-file ${join(dir, "nowhere")} cannot be read (ENOENT)`,
    });
    tokenFile("empty", "\n", 0o600);
    expect(problem(["--token-file", "empty"]).message).toBe(`--token-file ${join(dir, "empty")} is empty`);
    expect(problem(["--token-file", "mine", "--token", tokenFor("w-1")]).message).toBe(
      "--token and --token-file were both given",
    );
    expect(problem([]).hint).toContain("--token-file FILE");
  });

  it("whilly-worker sends the file's token and prints the warning once", async () => {
    const token = tokenFor("w-9");
    const file = tokenFile("run", `${token}\n`, 0o640);
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      req.on("end", () => {
        if (req.url === "/tasks/claim") res.writeHead(204).end();
        else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    let err = "";
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const code = await workerMain(
        ["--connect", url, "--token-file", file, "--plan", "p", "--max-iterations", "1"],
        {
          out: { write: () => true },
          err: {
            write: (text: string) => {
              err += text;
              return true;
            },
          },
          env: {},
          cwd: dir,
          interrupt: undefined,
        },
        {
          makeRunAttempt: () => async () => ({
            ok: true,
            reason: undefined,
            costMicroUsd: 0,
            aborted: false,
            detail: {},
          }),
        },
      );
      expect(code).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((header) => header === `Bearer ${token}`)).toBe(true);
    expect(
      err.match(/whilly-worker: warning: the token file .* is open to other users \(mode 0640\)/g),
    ).toHaveLength(1);
  });
});
