import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseEnv, makeRepo, removeAll, runBin, runCli, writePlanFile } from "../../../test/support/cli.js";

// `whilly run` refusing a setup that could never run a task, before it opens the store or claims.
afterAll(removeAll);

describe("whilly run with an agent that cannot be started", () => {
  it("exits 2 naming CLAUDE_BIN for a missing path, and creates no store", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const result = await runBin(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: "/nonexistent/claude" }),
    });
    expect([result.code, result.out]).toEqual([2, ""]);
    expect(result.err).toMatch(/^error: CLAUDE_BIN: .*\/nonexistent\/claude.*\nhint: .*CLAUDE_BIN/);
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });

  it("exits 2 for a file that is not executable, and for a name not on PATH", async () => {
    const repo = makeRepo();
    writePlanFile(join(repo, "tasks.json"), "p", [["T-1", "high"]]);
    const script = join(repo, "claude");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o644);
    const notExecutable = await runCli(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: script }),
    });
    expect(notExecutable.code).toBe(2);
    expect(notExecutable.err).toContain(`chmod +x ${script}`);
    const notOnPath = await runCli(["run", "tasks.json"], {
      cwd: repo,
      env: baseEnv({ CLAUDE_BIN: "no-such-claude" }),
    });
    expect(notOnPath.code).toBe(2);
    expect(notOnPath.err).toContain("error: CLAUDE_BIN: no program 'no-such-claude' on PATH");
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
  });
});
