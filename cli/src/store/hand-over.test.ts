import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  spawnBin,
  waitFor,
  writePlanFile,
} from "../../../test/support/cli.js";
import { main } from "../main.js";

// A long-lived command that owns the embedded store (`whilly events -f`, here in this process) hands
// it over to `whilly server` (a child process, an owner that must own it), keeps following through
// the server's socket, and when the server stops owns the store again itself.

let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(() => removeAll());

const BOOTSTRAP = "bootstrap-s3cret-7a2b9c";

it("hands the store over to `whilly server` and follows it across the server's end", async () => {
  const repo = makeRepo(template);
  const cli = (...argv: string[]) =>
    runCli(argv, { cwd: repo, env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }) });
  writePlanFile(join(repo, "tasks.json"), "handed", [["H-1", "high"]]);
  expect((await cli("plan", "import", "tasks.json")).code).toBe(0);

  const stop = new AbortController();
  let followed = "";
  let followErr = "";
  const follow = main(["events", "handed", "-f"], {
    out: { write: (text: string) => (followed += text), isTTY: false },
    err: { write: (text: string) => (followErr += text), isTTY: false },
    env: baseEnv({ WHILLY_EVENTS_POLL: "0.2" }),
    cwd: repo,
    interrupt: stop.signal,
  });
  const budgetLines = () =>
    followed.split("\n").filter((line) => line.includes("plan.budget_changed")).length;
  await waitFor("the followed import", () => (followed.includes("task.created") ? true : undefined));

  // The server must own the store: the follower hands it over.
  const server = spawnBin(["server", "--port", "0"], {
    cwd: repo,
    env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP }),
  });
  try {
    await waitFor(
      "the server's URL",
      () => (/^http:\/\/\S+\n/m.test(server.out()) ? true : undefined),
      30_000,
    );
    expect((await cli("plan", "budget", "handed", "2.5")).code).toBe(0);
    await waitFor("the change, followed through the server", () => (budgetLines() === 1 ? true : undefined));

    // An exclusive owner keeps it: a second server is refused, naming what holds the store.
    const second = await cli("server", "--port", "0");
    expect(second.code).toBe(1);
    expect(second.err).toContain("in use by another whilly process (`whilly server`, pid");
  } finally {
    server.child.kill("SIGINT");
  }
  expect((await server.done).code).toBe(0);

  // The follower owns the store again and serves the next command.
  expect((await cli("plan", "budget", "handed", "3")).code).toBe(0);
  await waitFor("the change after the server's end", () => (budgetLines() === 2 ? true : undefined));
  stop.abort();
  expect(await follow).toBe(130);
  expect(followErr).toBe("");
});
