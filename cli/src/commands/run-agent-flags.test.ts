import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, oneTaskRun, removeAll, withStore } from "../../../test/support/cli.js";

// The agent flags of `whilly run`, refused before the store holds the plan, each naming the flag and the fix.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run refuses bad agent flags before it stores the plan", () => {
  it("an unknown agent (listing the known ones), cmd without its command, a bad tag or model", async () => {
    const { repo, run } = oneTaskRun(template, "agent-flags");
    const cases: [string[], string, string][] = [
      [["--agent", "nosuch"], "error: --agent: no agent named 'nosuch'", "hint: use one of claude, "],
      [["--force-agent", "cmd"], "error: --force-agent cmd needs the command to run", "--agent-cmd"],
      [["--tags", "gpu,Big"], "error: --tags 'Big' is not a tag", "hint: fix --tags"],
      [["--model", "two words"], "error: --model 'two words' is not a model name", "hint: fix --model"],
      [
        ["--agent", "cmd", "--agent-cmd", "agent 'open"],
        "error: --agent-cmd: the quote ' is not closed",
        "close it",
      ],
    ];
    for (const [argv, error, hint] of cases) {
      const result = await run(...argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.err).toContain(error);
      expect(result.err).toContain(hint);
      expect(result.err).not.toContain("whilly run: plan");
    }
    expect(await withStore(repo, (store) => store.getPlan("agent-flags"))).toBeUndefined();
  });

  it("an --agent-cmd whose program is not there, when --agent cmd asks for it", async () => {
    const { run } = oneTaskRun(template, "agent-missing");
    const result = await run("--agent", "cmd", "--agent-cmd", "/nowhere/agent {prompt_file}");
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      "error: --agent cmd does not start here: /nowhere/agent is not an executable file",
    );
    expect(result.err).toContain("hint: install the program --agent-cmd (WHILLY_AGENT_CMD) names");
  });
});
