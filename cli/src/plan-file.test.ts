import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, makeStoreTemplate, removeAll, runCli } from "../../test/support/cli.js";

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("plan files are UTF-8", () => {
  it("refuses a Latin-1 file naming where the first bad byte is, and stores nothing", async () => {
    const repo = makeRepo(template);
    const json = '{\n  "plan_id": "latin",\n  "project": "caf\u00e9",\n  "tasks": []\n}\n';
    writeFileSync(join(repo, "tasks.json"), Buffer.from(json, "latin1"));
    const result = await runCli(["plan", "import", "tasks.json"], { cwd: repo });
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      "error: plan file 'tasks.json' is not UTF-8 text (first bad byte at or before line 3, column 18)",
    );
    expect(result.err).toContain("hint: save it as UTF-8");
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).toBe("[]\n");
  });

  it("imports the same text saved as UTF-8, accents intact", async () => {
    const repo = makeRepo(template);
    const json = '{"plan_id": "utf", "project": "caf\u00e9", "tasks": []}';
    writeFileSync(join(repo, "tasks.json"), json, "utf8");
    expect((await runCli(["plan", "import", "tasks.json"], { cwd: repo })).code).toBe(0);
    const [plan] = JSON.parse((await runCli(["plan", "list", "--json"], { cwd: repo })).out);
    expect(plan.name).toBe("caf\u00e9");
  });
});
