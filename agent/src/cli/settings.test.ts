import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { parseWorkerArgs } from "./args.js";
import { parseWorkerSettings } from "./settings.js";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const tokenFor = (sub: string) => `${part({ alg: "HS256" })}.${part({ sub })}.sig`;

function parse(argv: string[], env: Record<string, string> = {}) {
  return parseWorkerSettings(parseWorkerArgs(argv), env, "/home/w");
}

function problem(argv: string[], env: Record<string, string> = {}): ConfigurationError {
  try {
    parse(argv, env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

const DURATION_RANGE =
  "must be a duration like 90s, 30m or 1h (a bare number is seconds), from 1 ms up to 2147483647 ms";

const required = ["--connect", "http://cp:8000/", "--token", tokenFor("w-1"), "--plan", "demo"];

describe("parseWorkerSettings", () => {
  it("records attempts in --state-dir, else WHILLY_STATE_DIR, else the XDG state directory, outside the work tree", () => {
    expect(parse([...required, "--state-dir", "st"], { WHILLY_STATE_DIR: "/env/st" }).stateDir).toBe(
      "/home/w/st",
    );
    expect(parse(required, { WHILLY_STATE_DIR: "/env/st" }).stateDir).toBe("/env/st");
    expect(parse(required, { XDG_STATE_HOME: "/x", HOME: "/h" }).stateDir).toBe("/x/whilly-worker");
    expect(parse(required, { HOME: "/h" }).stateDir).toBe("/h/.local/state/whilly-worker");
    expect(parse([...required, "--workdir", "/repo"], {}).stateDir).toBe("/repo/.whilly");
  });

  it("names the first missing value's flag and variable, in the order connect, token, plan", () => {
    expect(problem([]).message).toBe("missing --connect (or WHILLY_CONTROL_URL)");
    expect(problem(["--connect", "http://cp"]).message).toBe("missing --token (or WHILLY_WORKER_TOKEN)");
    expect(problem([], { WHILLY_CONTROL_URL: "http://cp", WHILLY_WORKER_TOKEN: "t" }).message).toBe(
      "missing --plan (or WHILLY_PLAN_ID)",
    );
    expect(problem(["--connect", " "]).hint).toContain("WHILLY_CONTROL_URL");
  });

  it("takes the worker id from the token's sub claim, and the defaults docs/worker.md gives", () => {
    const s = parse(required);
    expect(s).toMatchObject({
      controlUrl: "http://cp:8000",
      planId: "demo",
      workerId: "w-1",
      workerIdFrom: "token",
      once: false,
      heartbeatIntervalMs: 30_000,
      progressIntervalMs: 30_000,
      maxIterations: undefined,
      workdir: "/home/w",
      taskTimeoutMs: 30 * 60_000,
    });
  });

  it("prefers flags to the environment", () => {
    const env = {
      WHILLY_CONTROL_URL: "http://env",
      WHILLY_WORKER_TOKEN: "shared",
      WHILLY_PLAN_ID: "env-plan",
      WHILLY_WORKER_ID: "env-id",
      WHILLY_HEARTBEAT_INTERVAL: "5",
    };
    expect(parse([], env)).toMatchObject({
      controlUrl: "http://env",
      token: "shared",
      planId: "env-plan",
      workerId: "env-id",
      workerIdFrom: "env",
      heartbeatIntervalMs: 5000,
    });
    const flags = [
      "--plan",
      "p2",
      "--worker-id",
      "flag-id",
      "--heartbeat-interval",
      "0.5",
      "--workdir",
      "sub",
    ];
    expect(parse(flags, env)).toMatchObject({
      planId: "p2",
      workerId: "flag-id",
      workerIdFrom: "flag",
      heartbeatIntervalMs: 500,
      workdir: "/home/w/sub",
    });
  });

  it("needs --worker-id with a token that carries no id, and refuses one the token contradicts", () => {
    const shared = ["--connect", "http://cp", "--token", "shared-secret", "--plan", "p"];
    const missing = problem(shared);
    expect(missing.message).toContain("no worker id");
    expect(missing.hint).toContain("--worker-id");
    expect(parse([...shared, "--worker-id", "w-9"]).workerId).toBe("w-9");
    const other = problem([...required, "--worker-id", "w-2"]);
    expect(other.message).toBe("--worker-id 'w-2' is not the worker this token was issued for ('w-1')");
    expect(parse([...required, "--worker-id", "w-1"]).workerIdFrom).toBe("flag");
  });

  it("words a negative value by the flag's range, as --flag -5 and as --flag=-5", () => {
    for (const [flag, value, words] of [
      ["--retry-budget", "-5s", "--retry-budget"],
      ["--max-iterations", "-1", "--max-iterations"],
      ["--heartbeat-interval", "-2", "--heartbeat-interval"],
      ["--task-timeout", "-5m", "--task-timeout"],
    ] as const) {
      const spaced = problem([...required, flag, value]);
      expect(spaced.message).toContain(words);
      expect(spaced.message).not.toContain("ambiguous");
      expect(problem([...required, `${flag}=${value}`]).message).toBe(spaced.message);
    }
    expect(problem([...required, "--max-iterations", "-1"]).message).toMatch(
      /^--max-iterations must be a whole number/,
    );
  });

  it("checks values: URL scheme, heartbeat seconds, iterations, task timeout, Claude settings", () => {
    expect(problem(["--connect", "cp:8000", "--token", "t", "--plan", "p"]).message).toContain("http(s) URL");
    expect(problem([...required, "--heartbeat-interval", "0"]).message).toContain("--heartbeat-interval");
    expect(problem([...required, "--heartbeat-interval", "abc"]).message).toContain("positive number");
    expect(problem([...required, "--max-iterations", "0"]).message).toContain("--max-iterations");
    expect(problem([...required, "--task-timeout", "soon"]).message).toContain("--task-timeout");
    expect(problem(required, { WHILLY_CLAUDE_MAX_TURNS: "many" }).message).toContain(
      "WHILLY_CLAUDE_MAX_TURNS",
    );
    expect(parse([...required, "--max-iterations", "7", "--task-timeout", "90s", "--once"])).toMatchObject({
      maxIterations: 7,
      taskTimeoutMs: 90_000,
      once: true,
    });
  });

  it("bounds retries by default only for a worker told when to stop; a given budget applies to any", () => {
    expect(parse(required).retryBudgetMs).toBeUndefined();
    expect(parse([...required, "--once"]).retryBudgetMs).toBe(60_000);
    expect(parse([...required, "--max-iterations", "2"]).retryBudgetMs).toBe(60_000);
    expect(parse([...required, "--once"], { WHILLY_RETRY_BUDGET: "5m" }).retryBudgetMs).toBe(300_000);
    expect(parse([...required, "--retry-budget", "90s"], { WHILLY_RETRY_BUDGET: "5m" }).retryBudgetMs).toBe(
      90_000,
    );
    const bad = problem([...required, "--once", "--retry-budget", "never"]);
    expect(bad.message).toBe(`--retry-budget (WHILLY_RETRY_BUDGET) ${DURATION_RANGE}; got 'never'`);
    expect(bad.hint).toContain("unreachable control plane");
  });

  it.each(["0", "0.0001", "2147484", "-5", "1e3", "0x10", "NaN", "Infinity", "5s", ".5", "5."])(
    "refuses --heartbeat-interval %j as the control plane refuses its durations, naming the range",
    (value) => {
      const least = value === "0.0001" ? ", at least 0.001" : "";
      const message = `must be a positive number of seconds up to 2147483.647${least}; got '${value}'`;
      const name = "--heartbeat-interval (WHILLY_HEARTBEAT_INTERVAL)";
      expect(problem([...required, `--heartbeat-interval=${value}`]).message).toBe(`${name} ${message}`);
      expect(problem(required, { WHILLY_HEARTBEAT_INTERVAL: value }).message).toBe(`${name} ${message}`);
    },
  );

  it.each(["0", "0s", "0.0004s", "0.4ms", "-1m", "1e3", "0x10", "NaN", "597h", "2147483648ms", "1d", "m"])(
    "refuses --task-timeout and --retry-budget %j, naming the range",
    (value) => {
      expect(problem([...required, `--task-timeout=${value}`]).message).toBe(
        `--task-timeout ${DURATION_RANGE}; got '${value}'`,
      );
      expect(problem(required, { WHILLY_RETRY_BUDGET: value }).message).toBe(
        `--retry-budget (WHILLY_RETRY_BUDGET) ${DURATION_RANGE}; got '${value}'`,
      );
    },
  );

  it("takes durations up to what a timer holds, in any unit, a bare number as seconds", () => {
    const cases = [
      ["596h", 596 * 3_600_000],
      ["2147483647ms", 2_147_483_647],
      ["1.5h", 5_400_000],
      ["90", 90_000],
      ["0.5ms", 1],
      [" 30 m ", 1_800_000],
    ] as const;
    for (const [value, ms] of cases) {
      const s = parse([...required, "--task-timeout", value, "--retry-budget", value]);
      expect([s.taskTimeoutMs, s.retryBudgetMs]).toEqual([ms, ms]);
    }
    expect(parse([...required, "--heartbeat-interval", "2147483.647"]).heartbeatIntervalMs).toBe(
      2_147_483_647,
    );
  });

  it("reads WHILLY_PROGRESS_INTERVAL in seconds and refuses what is not one", () => {
    expect(parse(required, { WHILLY_PROGRESS_INTERVAL: "0.05" }).progressIntervalMs).toBe(50);
    expect(problem(required, { WHILLY_PROGRESS_INTERVAL: "0" }).message).toBe(
      "WHILLY_PROGRESS_INTERVAL must be a positive number of seconds up to 2147483.647; got '0'",
    );
  });

  it("reads the limit backoff as durations, 60 s and 6 h by default, and refuses what is not one", () => {
    expect(parse(required, {})).toMatchObject({ limitBackoffMs: 60_000, limitBackoffMaxMs: 21_600_000 });
    const env = { WHILLY_LIMIT_BACKOFF: "500ms", WHILLY_LIMIT_BACKOFF_MAX: "2" };
    expect(parse(required, env)).toMatchObject({ limitBackoffMs: 500, limitBackoffMaxMs: 2000 });
    expect(problem(required, { WHILLY_LIMIT_BACKOFF: "soon" }).message).toMatch(
      /^WHILLY_LIMIT_BACKOFF must be a duration like 90s, 30m or 1h/,
    );
  });

  it.each(["0", "-1", "1.5", "0x10", "1e3", "07", "1000000000"])(
    "refuses --max-iterations %j, naming the range",
    (value) => {
      expect(problem([...required, `--max-iterations=${value}`]).message).toBe(
        `--max-iterations must be a whole number from 1 to 999999999; got '${value}'`,
      );
    },
  );

  it("keeps the worker's own credentials out of the agent's environment", () => {
    const env = {
      WHILLY_WORKER_TOKEN: tokenFor("w-1"),
      WHILLY_WORKER_BOOTSTRAP_TOKEN: "boot",
      ANTHROPIC_API_KEY: "sk-ant-x",
      PATH: "/bin",
    };
    const s = parse(["--connect", "http://cp", "--plan", "p"], env);
    expect(s.agentEnv).toEqual({ ANTHROPIC_API_KEY: "sk-ant-x", PATH: "/bin" });
    expect(s.token).toBe(env.WHILLY_WORKER_TOKEN);
  });
});
