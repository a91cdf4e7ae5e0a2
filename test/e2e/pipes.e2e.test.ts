import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  WHILLY_BIN,
} from "../support/cli.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly as a pipeline stage", () => {
  it("exits quietly when the reader closes the pipe early", async () => {
    const repo = makeRepo(template);
    const imported = await runCli(["plan", "import", join(FIXTURES, "plans", "v4-1.tasks.json")], {
      cwd: repo,
    });
    expect(imported.code).toBe(0);
    const planId = "Whilly v4.1 — Out-of-scope items from v4.0 release";
    // head reads one byte and exits; the ~67 KB export then writes into a closed pipe.
    const script = `"${process.execPath}" "${WHILLY_BIN}" plan export "$1" | head -c 1 >/dev/null; echo "status=\${PIPESTATUS[0]}"`;
    const result = spawnSync("bash", ["-c", script, "bash", planId], {
      cwd: repo,
      env: baseEnv() as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    expect(result.stdout.trim()).toBe("status=0");
    expect(result.stderr).not.toContain("EPIPE");
    expect(result.stderr).not.toMatch(/at .*\(node:/);
  });
});
