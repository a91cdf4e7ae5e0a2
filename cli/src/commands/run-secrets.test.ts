import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allSecretsText, leakedSecrets } from "../../../test/fixtures/secret-samples.js";
import {
  eventsOf,
  fakeAgentEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  scratchDir,
  writePlanFile,
} from "../../../test/support/cli.js";

// An agent that prints credentials of every well-known shape, and the values of the environment's own
// secrets: `whilly run` must neither print nor store any of them.

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** A value of no known shape: only knowing it is the environment's secret hides it. */
const OWN_PASSWORD = "plain-own-value-4711";

describe("whilly run with an agent that prints secrets", () => {
  it("prints and stores none of them", async () => {
    const repo = makeRepo(template);
    writePlanFile(join(repo, "tasks.json"), "leaky", [["L-1", "high"]]);
    // The first line is what the progress lines and the summary show.
    const message = `Could not push: password ${OWN_PASSWORD} ${allSecretsText(" ")}`;
    const env = {
      ...fakeAgentEnv({ script: { "L-1": { outcome: "fail", message } }, log: join(scratchDir(), "a.log") }),
      MY_SERVICE_PASSWORD: OWN_PASSWORD,
    };
    const result = await runCli(["run", "tasks.json"], { cwd: repo, env });
    expect(result.code).toBe(1);
    const shown = result.out + result.err;
    expect(shown).toContain("[redacted]");
    expect(leakedSecrets(shown)).toEqual([]);
    expect(shown).not.toContain(OWN_PASSWORD);
    const stored = JSON.stringify(await eventsOf(repo, "leaky"));
    expect(stored).toContain("[redacted]");
    expect(leakedSecrets(stored)).toEqual([]);
    expect(stored).not.toContain(OWN_PASSWORD);
  });
});
