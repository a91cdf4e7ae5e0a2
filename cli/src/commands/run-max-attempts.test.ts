import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  scratchDir,
  writePlanFile,
} from "../../../test/support/cli.js";

// `--max-attempts` is stored on the plan; a later run of the same file (which sets none) must not push
// the user to a destructive reset for it.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run after --max-attempts was stored", () => {
  it("warns of no difference when --max-attempts is given, and names the stored value and --max-attempts when not", async () => {
    const repo = makeRepo(template);
    writePlanFile(join(repo, "tasks.json"), "limits", [["M-1", "high"]]);
    // The file names no max_attempts, and has a check, so the stored plan is not a blank one to fill.
    const file = JSON.parse(readFileSync(join(repo, "tasks.json"), "utf8"));
    delete file.max_attempts;
    writeFileSync(join(repo, "tasks.json"), JSON.stringify({ ...file, verify: ["true"] }));
    const env = fakeAgentEnv({ script: {}, log: join(scratchDir("whilly-agent-"), "agent.log") });
    const run = (...argv: string[]) => runCli(["run", "tasks.json", ...argv], { cwd: repo, env });

    expect((await run("--max-attempts", "5")).code).toBe(0);
    const again = await run("--max-attempts", "5");
    expect(again.code).toBe(0);
    expect(again.err).not.toContain("differ");
    const plain = await run();
    expect(plain.code).toBe(0);
    expect(plain.err).toContain(
      "warning: the file's max_attempts (none) differs from the stored plan's 5; running with 5 (give --max-attempts N to run with N)",
    );
    expect(plain.err).not.toContain("reset --hard");
  });
});
