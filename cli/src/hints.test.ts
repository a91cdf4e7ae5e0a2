import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURES,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
  writePlanFile,
} from "../../test/support/cli.js";

// Every error says what to do about that error: the hint of a usage or configuration error fits it.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

/** The `error:` and `hint:` lines of a failed command. */
function lines(result: { err: string }): string[] {
  return result.err.split("\n").filter((l) => l.startsWith("error: ") || l.startsWith("hint: "));
}

describe("usage errors carry their own hint", () => {
  it("a missing positional names the argument and the command", async () => {
    const repo = makeRepo(template);
    const cases: [string[], string, string][] = [
      [["worker", "revoke"], "<worker_id>", "whilly worker revoke <worker_id>"],
      [["plan", "show"], "<plan_id>", "whilly plan show <plan_id>"],
      [["plan", "budget", "p"], "<budget>", "whilly plan budget <plan_id> <budget>"],
      [["plan", "import"], "<file>", "whilly plan import <file>"],
    ];
    for (const [argv, missing, command] of cases) {
      const result = await runCli(argv, { cwd: repo });
      expect({ argv, code: result.code, out: result.out, lines: lines(result) }).toEqual({
        argv,
        code: 2,
        out: "",
        lines: [
          `error: missing ${missing}: ${command}`,
          `hint: ${command.replace(/ <.*$/, "")} --help describes its arguments`,
        ],
      });
    }
  });

  it("a command group without its verb points at the group's help; bare whilly prints the help (exit 0)", async () => {
    const repo = makeRepo();
    expect(lines(await runCli(["plan"], { cwd: repo }))).toEqual([
      "error: name a plan verb: import, apply, create, export, show, reset, retry, release, budget, list, integrate, pr or triz",
      "hint: whilly plan --help describes each",
    ]);
    expect((await runCli(["worker"], { cwd: repo })).code).toBe(2);
    // As whilly 4.x did, and as docs/cli.md says: the help, on stdout.
    const bare = await runCli([], { cwd: repo });
    expect([bare.code, bare.err]).toEqual([0, ""]);
    expect(bare.out).toContain("whilly <command>");
  });

  it("plan reset without a terminal shows the command with --yes; bad flag values show an example", async () => {
    const repo = makeRepo(template);
    await runCli(["plan", "import", join(FIXTURES, "plans", "demo.tasks.json")], { cwd: repo });
    expect(lines(await runCli(["plan", "reset", "demo", "--keep-tasks"], { cwd: repo }))).toEqual([
      "error: not a terminal: pass --yes to reset without asking",
      "hint: to reset from a script, confirm on the command line: whilly plan reset 'demo' --keep-tasks --yes",
    ]);
    expect(lines(await runCli(["plan", "reset", "demo", "--hard", "--failed"], { cwd: repo }))).toEqual([
      "error: choose exactly one of --keep-tasks, --failed and --hard",
      "hint: --keep-tasks sets every task back to PENDING, --failed only the FAILED ones, --hard deletes the plan",
    ]);
    expect(lines(await runCli(["run", "x.json", "--max-tasks", "abc"], { cwd: repo }))).toEqual([
      "error: --max-tasks must be a whole number of at least 1; got 'abc'",
      "hint: digits only, e.g. --max-tasks 1",
    ]);
    expect(lines(await runCli(["run", "x.json", "--task-timeout", "soon"], { cwd: repo }))).toEqual([
      "error: --task-timeout must be a duration like 90s, 30m or 1h; got 'soon'",
      "hint: a number with s, m or h, or a bare number of seconds, e.g. --task-timeout 45m",
    ]);
  });

  it("worker register against an unreachable control plane says what to check", async () => {
    const repo = makeRepo();
    const result = await runCli(
      ["worker", "register", "--connect", "http://127.0.0.1:9/whilly", "--bootstrap-token", "x".repeat(32)],
      { cwd: repo },
    );
    expect(result.code).toBe(1);
    expect(lines(result)).toEqual([
      expect.stringMatching(/^error: cannot reach the control plane at http:\/\/127\.0\.0\.1:9\/whilly: /),
      "hint: check the URL, and that whilly server runs there and is reachable from this machine (curl http://127.0.0.1:9/whilly/health)",
    ]);
  });
});

describe("warnings say the exact command", () => {
  it("re-importing a changed file names the plan and --yes in the way to replace its tasks", async () => {
    const repo = makeRepo(template);
    const file = join(repo, "tasks.json");
    writePlanFile(file, "my plan", [["T-1", "high"]]);
    expect((await runCli(["plan", "import", file], { cwd: repo })).code).toBe(0);
    writePlanFile(file, "my plan", [["T-1", "low"]]);
    const again = await runCli(["plan", "import", file], { cwd: repo });
    expect(again.err).toBe(
      "warning: plan 'my plan' is already stored and the file differs for 1 task(s): T-1; the stored tasks were kept (whilly plan reset 'my plan' --hard --yes, then import again, to replace them)\n",
    );
  });
});
