import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, oneTaskRun, removeAll, withStore } from "../../../test/support/cli.js";

// `whilly run --ui [--port N]`: a bad port is refused before the plan is stored, naming the flag.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("whilly run --ui --port", () => {
  it("refuses a port that is no whole number from 0 to 65535, and --port without --ui", async () => {
    const { repo, run } = oneTaskRun(template, "ui-flags");
    const refused = [
      [["--ui", "--port", "abc"], "error: --port must be a whole number from 0 to 65535; got 'abc'"],
      [["--ui", "--port", "70000"], "error: --port must be a whole number from 0 to 65535; got '70000'"],
      [["--ui", "--port", "1", "--port", "2"], "error: --port was given 2 times; give it once"],
      [["--port", "8080"], "error: --port needs --ui: it is the port of the run's web dashboard"],
    ] as const;
    for (const [argv, message] of refused) {
      const result = await run(...argv);
      expect(result.code, result.err).toBe(2);
      expect(result.err).toContain(message);
      expect(result.err).not.toContain("dashboard:");
    }
    expect(await withStore(repo, (store) => store.getPlan("ui-flags"))).toBeUndefined();
  });

  it("names --port and WHILLY_UI_PORT when the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { run } = oneTaskRun(template, "ui-port-taken");
      const result = await run("--ui", "--port", String(port));
      expect(result.code, result.err).toBe(2);
      expect(result.err).toContain(
        `error: the dashboard's port ${port} is in use (--port or WHILLY_UI_PORT)`,
      );
      expect(result.err).toContain("hint: give another --port, or --port 0 for any free one");
      expect(result.err).not.toContain("dashboard: http");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
