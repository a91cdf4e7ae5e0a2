import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeRepo, removeAll, runCli } from "../../test/support/cli.js";
import { IMPORT_PROGRESS_MIN_TASKS, importProgress } from "./import-progress.js";
import type { Io } from "./io.js";

afterAll(removeAll);

function captured(): { io: Io; lines: () => string[] } {
  let err = "";
  const io: Io = { out: { write: () => true }, err: { write: (t: string) => (err += t) }, env: {}, cwd: "/" };
  return { io, lines: () => err.split("\n").filter((l) => l !== "") };
}

describe("importProgress", () => {
  it("prints at most one line a second and always the last one", () => {
    const { io, lines } = captured();
    let clock = 0;
    const { onProgress } = importProgress(io, "big", () => clock);
    onProgress?.(500, 5000);
    clock = 999;
    onProgress?.(1000, 5000);
    clock = 1000;
    onProgress?.(1500, 5000);
    clock = 1100;
    onProgress?.(5000, 5000);
    expect(lines()).toEqual([
      "whilly: importing plan 'big': 1,500/5,000 new tasks stored",
      "whilly: importing plan 'big': 5,000/5,000 new tasks stored",
    ]);
  });

  it("says nothing for a plan that imports in about a second", () => {
    const { io, lines } = captured();
    const { onProgress } = importProgress(io, "small", () => 10_000);
    onProgress?.(IMPORT_PROGRESS_MIN_TASKS - 1, IMPORT_PROGRESS_MIN_TASKS - 1);
    expect(lines()).toEqual([]);
  });
});

describe("whilly plan import of a large plan", () => {
  it("shows the stored count on stderr and keeps stdout to the result line", async () => {
    const repo = makeRepo();
    const total = IMPORT_PROGRESS_MIN_TASKS + 500;
    const tasks = Array.from({ length: total }, (_, i) => ({
      id: `T-${i}`,
      status: "pending",
      priority: "medium",
      description: `Task number ${i} of a large plan.`,
    }));
    writeFileSync(join(repo, "tasks.json"), JSON.stringify({ plan_id: "big", project: "Big", tasks }));
    const result = await runCli(["plan", "import", "tasks.json"], { cwd: repo });
    expect(result.code).toBe(0);
    expect(result.out).toBe(`imported plan 'big' (${total} tasks: ${total} new).\n`);
    expect(result.err).toContain(
      `whilly: importing plan 'big': ${total.toLocaleString("en-US")}/${total.toLocaleString("en-US")} new tasks stored\n`,
    );
  }, 60_000);
});
