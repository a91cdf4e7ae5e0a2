import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// The built `whilly-worker` given a control-plane URL it cannot use: refused at once with exit 2,
// naming --connect and WHILLY_CONTROL_URL, never retried, never showing the password.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(root, "agent/bin/whilly-worker.js");
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-7" })}.sig`;

beforeAll(() => {
  if (!existsSync(join(root, "agent/dist/cli/main.js"))) throw new Error("build first: npx tsc -b");
});

function runWorker(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      WHILLY_WORKER_TOKEN: token,
      WHILLY_PLAN_ID: "demo",
      ...env,
    },
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

describe("--connect URLs whilly-worker refuses", () => {
  it("a user name and password: exit 2, the password masked, in the worker and in register", async () => {
    for (const args of [
      ["--connect", "http://user:s3cret-pw@127.0.0.1:9/", "--once"],
      ["register", "--connect", "http://user:s3cret-pw@127.0.0.1:9", "--bootstrap-token", "b"],
    ]) {
      const result = await runWorker(args);
      expect(result).toEqual({
        code: 2,
        out: "",
        err:
          "error: --connect (WHILLY_CONTROL_URL) must not carry a user name or password; got 'http://***@127.0.0.1:9" +
          `${args[0] === "register" ? "" : "/"}'\n` +
          "hint: drop the user:password@ part: workers authenticate with a bearer token (--token, --bootstrap-token)\n",
      });
    }
  });

  it("a query or fragment, from WHILLY_CONTROL_URL too: exit 2", async () => {
    const result = await runWorker(["--once"], { WHILLY_CONTROL_URL: "http://127.0.0.1:9/?q=1#f" });
    expect(result.code).toBe(2);
    expect(result.err.split("\n")[0]).toBe(
      "error: --connect (WHILLY_CONTROL_URL) must not have a query (?...) or fragment (#...); got 'http://127.0.0.1:9/?q=1#f'",
    );
    const bare = await runWorker(["--once", "--connect", "http://127.0.0.1:9/#"]);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("must not have a query");
  });
});
