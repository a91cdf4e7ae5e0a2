import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  FIXTURES,
  hasAnsi,
  makeRepo,
  makeStoreTemplate,
  removeAll,
  runCli,
} from "../../test/support/cli.js";
import { VERSION } from "./version.js";

// The command line as a whole, in-process: usage errors, exit codes, colour, JSON.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

describe("usage errors exit 2 with error: and hint: on stderr, nothing on stdout", () => {
  it("names an unknown command, and suggests the nearest one", async () => {
    const repo = makeRepo();
    const frob = await runCli(["frob"], { cwd: repo });
    expect(frob.code).toBe(2);
    expect(frob.out).toBe("");
    expect(frob.err).toMatch(/^error: .*'?frob'?/);
    expect(frob.err).toContain("\nhint: ");

    const typo = await runCli(["plna", "list"], { cwd: repo });
    expect(typo.code).toBe(2);
    expect(typo.out).toBe("");
    expect(typo.err).toMatch(/^error: .*plna/);
    expect(typo.err).toMatch(/hint: .*plan/);

    const verb = await runCli(["plan", "lst"], { cwd: repo });
    expect(verb.code).toBe(2);
    expect(verb.err).toMatch(/^error: .*lst/);
    expect(verb.err).toMatch(/hint: .*list/);
  });

  it("names an unknown flag, a missing argument and a bad option value", async () => {
    const repo = makeRepo();
    const cases: [string[], RegExp][] = [
      [["plan", "list", "--bogus"], /^error: Unknown argument: bogus\n/],
      [["plan", "import"], /^error: /],
      [["plan", "create", "--name", "x"], /^error: .*id/],
      [["run"], /^error: name a plan file or --plan ID\nhint: e\.g\. whilly run /],
      [["run", "x.json", "--task-timeout", "soon"], /^error: --task-timeout must be a duration .*'soon'/],
      [
        ["run", "x.json", "--max-tasks", "0"],
        /^error: --max-tasks must be a whole number of at least 1; got '0'\n/,
      ],
      [
        ["run", "x.json", "--max-tasks", "abc"],
        /^error: --max-tasks must be a whole number of at least 1; got 'abc'\n/,
      ],
      [
        ["run", "x.json", "--max-tasks", "2.5"],
        /^error: --max-tasks must be a whole number of at least 1; got '2\.5'\n/,
      ],
      [["run", "x.json", "--max-tasks", "1", "--max-tasks", "2"], /^error: --max-tasks was given 2 times/],
      [["plan"], /^error: name a plan verb/],
    ];
    for (const [argv, message] of cases) {
      const result = await runCli(argv, { cwd: repo });
      expect({ argv, code: result.code, out: result.out }).toEqual({ argv, code: 2, out: "" });
      expect(result.err).toMatch(message);
      expect(result.err).toContain("hint: ");
    }
  });

  it("whilly server reports a bad --port as one JSON log line, as it logs everything on stderr", async () => {
    const repo = makeRepo();
    for (const bad of ["abc", "1e3", "0x50", "-1", "65536"]) {
      const result = await runCli(["server", "--port", bad], { cwd: repo });
      expect({ bad, code: result.code, out: result.out }).toEqual({ bad, code: 2, out: "" });
      const lines = result.err.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] ?? "")).toMatchObject({
        level: "error",
        event: "server.failed",
        message: `--port must be a whole number from 0 to 65535; got '${bad}'`,
        hint: expect.any(String),
      });
    }
  });

  it("exits 2 for an invalid environment before touching the store", async () => {
    const repo = makeRepo();
    const result = await runCli(["plan", "list"], {
      cwd: repo,
      env: baseEnv({ WHILLY_DATABASE_URL: "mysql://nope" }),
    });
    expect(result).toEqual({
      code: 2,
      out: "",
      err:
        "error: WHILLY_DATABASE_URL must start with postgres:// or postgresql://\n" +
        "hint: e.g. postgres://user@host:5432/whilly, or unset it to use the embedded store in .whilly/\n",
    });
  });

  it("prints the version and the help on stdout with exit 0", async () => {
    const repo = makeRepo();
    expect(await runCli(["--version"], { cwd: repo })).toEqual({
      code: 0,
      out: `whilly ${VERSION}\n`,
      err: "",
    });
    const help = await runCli([], { cwd: repo });
    expect(help.code).toBe(0);
    expect(help.out).toContain("whilly <command>");
    expect(help.out).toContain("run [file]");
  });
});

describe("a plan id that is not stored exits 2 with a hint", () => {
  it("for show, export, reset and run --plan", async () => {
    const repo = makeRepo(template);
    for (const argv of [
      ["plan", "show", "nope"],
      ["plan", "export", "nope"],
      ["plan", "reset", "nope", "--hard", "--yes"],
      ["run", "--plan", "nope"],
    ]) {
      // An agent that can be started, so run --plan gets as far as looking the plan up.
      const result = await runCli(argv, { cwd: repo, env: baseEnv({ CLAUDE_BIN: "/bin/true" }) });
      expect({ argv, ...result }).toEqual({
        argv,
        code: 2,
        out: "",
        err: "error: plan 'nope' not found\nhint: check the id matches the plan_id you imported (whilly plan list shows them)\n",
      });
    }
  });
});

describe("colour and JSON", () => {
  it("colours badges and errors only on a terminal without NO_COLOR", async () => {
    const repo = makeRepo(template);
    const demo = join(FIXTURES, "plans", "demo.tasks.json");
    expect((await runCli(["plan", "import", demo], { cwd: repo })).code).toBe(0);

    const tty = await runCli(["plan", "show", "demo"], { cwd: repo, tty: true });
    expect(tty.code).toBe(0);
    expect(hasAnsi(tty.out)).toBe(true);

    const noColor = await runCli(["plan", "show", "demo"], {
      cwd: repo,
      tty: true,
      env: baseEnv({ NO_COLOR: "" }),
    });
    expect(noColor.code).toBe(0);
    expect(hasAnsi(noColor.out)).toBe(false);
    expect(noColor.out).toBe((await runCli(["plan", "show", "demo"], { cwd: repo })).out);

    const flag = await runCli(["plan", "show", "demo", "--no-color"], { cwd: repo, tty: true });
    expect(hasAnsi(flag.out)).toBe(false);

    // An error found before the store is opened: the same rule on stderr.
    const missing = ["plan", "import", "missing.json"];
    expect(hasAnsi((await runCli(missing, { cwd: repo, tty: true })).err)).toBe(true);
    for (const env of [baseEnv({ NO_COLOR: "1" }), baseEnv()]) {
      const plain = await runCli(missing, { cwd: repo, tty: env.NO_COLOR !== undefined, env });
      expect(plain.code).toBe(1);
      expect(plain.err).toMatch(/^error: cannot read plan file/);
      expect(hasAnsi(plain.err)).toBe(false);
    }
  });

  it("prints --json output that parses, for list, show and import", async () => {
    const repo = makeRepo(template);
    const demo = join(FIXTURES, "plans", "demo.tasks.json");
    const imported = await runCli(["plan", "import", demo, "--json"], { cwd: repo });
    expect(JSON.parse(imported.out)).toEqual({
      plan_id: "demo",
      plan_created: true,
      inserted: ["DEMO-001", "DEMO-002", "DEMO-003", "DEMO-004"],
      unchanged: [],
      changed: [],
      demoted_to_pending: [],
    });
    const show = JSON.parse((await runCli(["plan", "show", "demo", "--json"], { cwd: repo })).out);
    expect(show.tasks.find((t: { id: string }) => t.id === "DEMO-004")).toEqual({
      id: "DEMO-004",
      status: "PENDING",
      priority: "low",
      dependencies: ["DEMO-001", "DEMO-002"],
      attempts: 0,
      max_attempts: 3,
      cost_usd: "0.000000",
      not_before: null,
      last_failure: null,
      verification: null,
      branch: null,
      commit: null,
      agent: null,
      model: null,
      required_tags: [],
      waiting_for: null,
    });
    expect(show.blocked).toEqual([]);
    const list = JSON.parse((await runCli(["plan", "list", "--json"], { cwd: repo })).out);
    expect(list).toMatchObject([
      { id: "demo", name: "demo", task_count: 4, spent_usd: "0.000000", budget_usd: null },
    ]);
  });
});
