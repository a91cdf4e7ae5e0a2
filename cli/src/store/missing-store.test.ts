import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeRepo, removeAll, runCli, scratchDir } from "../../../test/support/cli.js";

// Commands that only read or change stored data, run where there is no store: a clear error, nothing made.
afterAll(removeAll);

const READERS: readonly (readonly string[])[] = [
  ["plan", "list"],
  ["plan", "show", "p"],
  ["plan", "export", "p"],
  ["plan", "reset", "p", "--hard", "--yes"],
  ["plan", "budget", "p", "5"],
  ["worker", "revoke", "w-1"],
  ["run", "--plan", "p"],
];

describe("commands that need an existing embedded store", () => {
  it("fail with exit 2 naming the directory and create nothing, outside a repository", async () => {
    const dir = scratchDir();
    for (const argv of READERS) {
      const result = await runCli(argv, {
        cwd: dir,
        env: { PATH: process.env.PATH, CLAUDE_BIN: "/bin/true" },
      });
      expect({ argv, ...result }).toEqual({
        argv,
        code: 2,
        out: "",
        err:
          `error: no whilly store in ${dir}: .whilly/ does not exist\n` +
          "hint: run `whilly plan import <file>` (or `whilly run <file>`) here first, or set WHILLY_DATABASE_URL to use a Postgres server\n",
      });
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("look at the repository root from a subdirectory, and leave .git/info/exclude alone", async () => {
    const repo = makeRepo();
    const sub = join(repo, "src");
    mkdirSync(sub);
    const exclude = join(repo, ".git", "info", "exclude");
    const before = existsSync(exclude) ? readFileSync(exclude, "utf8") : undefined;
    const result = await runCli(["plan", "show", "p"], { cwd: sub });
    expect(result.code).toBe(2);
    expect(result.err).toContain(`error: no whilly store in ${repo}: `);
    expect(existsSync(join(repo, ".whilly"))).toBe(false);
    expect(existsSync(join(sub, ".whilly"))).toBe(false);
    expect(existsSync(exclude) ? readFileSync(exclude, "utf8") : undefined).toBe(before);
  });
});
