import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, oneTaskRun, removeAll, withStore } from "../../../test/support/cli.js";

// Flags `whilly run` refuses before it opens the store: each refusal names the flag and the fix, and
// leaves no plan stored and no header printed.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

function setup(planId: string) {
  const { repo, run } = oneTaskRun(template, planId);
  const stored = () => withStore(repo, (store) => store.getPlan(planId));
  return { run, stored };
}

describe("whilly run refuses bad flags before it stores the plan", () => {
  it("an empty or bare --verify, like an empty --setup", async () => {
    const { run, stored } = setup("verify-empty");
    for (const argv of [["--verify", ""], ["--verify"], ["--verify", "true", "--verify", " "]]) {
      const result = await run(...argv);
      expect(result.code).toBe(2);
      expect(result.err).toContain("error: --verify is empty");
      expect(result.err).toContain("hint: give a command, e.g. --verify 'npm test', or drop --verify");
      expect(result.err).not.toContain("whilly run: plan");
    }
    expect(await stored()).toBeUndefined();
  });

  it("a --concurrency out of range names the range; a too long duration names the maximum", async () => {
    const { run } = setup("ranges");
    const many = await run("-j", "33");
    expect(many.code).toBe(2);
    expect(many.err).toContain("error: --concurrency must be a whole number from 1 to 32; got '33'");
    expect(many.err).toContain("hint: from 1 to 32, e.g. --concurrency 32");
    const long = await run("--verify-timeout", "99999999999");
    expect(long.code).toBe(2);
    expect(long.err).toContain("error: --verify-timeout '99999999999' is too long: at most 596h");
    expect(long.err).not.toContain("must be a duration like");
  });

  it("an unusable --branch, before the store is opened", async () => {
    const { run, stored } = setup("branches");
    const refused = {
      main: "is the branch checked out here",
      "-x": "is not a valid git branch name",
      "@x": "is not a valid git branch name",
      "a..b": "is not a valid git branch name",
      "refs/heads/work": "names the ref, not the branch",
      "whilly-tasks/mine": "is under whilly-tasks/",
    };
    for (const [branch, why] of Object.entries(refused)) {
      const result = await run(`--branch=${branch}`);
      expect(result.code).toBe(2);
      expect(result.err).toContain(`error: --branch '${branch}' ${why}`);
      expect(result.err).toContain("hint: ");
      expect(result.err).not.toContain("whilly run: plan");
    }
    expect(await stored()).toBeUndefined();
  });
});
