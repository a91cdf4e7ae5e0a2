import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OUTPUT_TAIL_BYTES } from "@whilly/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { removeScratch, scratch } from "../workspace/testing/git-repo.js";
import { type RunChecksOptions, runChecks } from "./run-checks.js";

afterAll(removeScratch);

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});

const PATH = "/usr/local/bin:/usr/bin:/bin";

function checks(dir: string, options: Partial<RunChecksOptions>) {
  return runChecks({
    cwd: dir,
    steps: [],
    verify: [],
    env: { PATH },
    timeoutMs: 10_000,
    killGraceMs: 100,
    ...options,
  });
}

/** True when the pid runs no process any more (a zombie counts as gone). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return true;
  }
}

describe("runChecks", () => {
  it("passes when every step and verify command exits 0, in order", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "a\n");
    const result = await checks(dir, {
      steps: ["test -f a.txt", "echo one >> order"],
      verify: ["echo two >> order"],
    });
    expect(result.status).toBe("passed");
    expect(result.checks.map((c) => [c.step, c.kind, c.source, c.exit_code])).toEqual([
      ["test -f a.txt", "run", "test_step", 0],
      ["echo one >> order", "run", "test_step", 0],
      ["echo two >> order", "run", "verify", 0],
    ]);
    expect(readFileSync(join(dir, "order"), "utf8")).toBe("one\ntwo\n");
  });

  it("fails at the first failing step, with its exit code and output, and runs no later one", async () => {
    const dir = scratch();
    const result = await checks(dir, { steps: ["echo 'expected 2, got 3' >&2; exit 3", "touch later"] });
    expect(result.status).toBe("failed");
    expect(result.failing).toEqual({
      step: "echo 'expected 2, got 3' >&2; exit 3",
      exit_code: 3,
      output_tail: "expected 2, got 3",
      timed_out: false,
    });
    expect(existsSync(join(dir, "later"))).toBe(false);
  });

  it("records manual steps, whilly's own commands and commands not found without failing, and runs them no more", async () => {
    const dir = scratch();
    const steps = ["manual: open the page and look", "whilly plan show p", "no-such-tool-xyz --check"];
    const first = await checks(dir, { steps });
    expect(first.status).toBe("unverified");
    expect(first.checks.map((c) => [c.kind, c.manual_reason])).toEqual([
      ["manual", "manual"],
      ["manual", "whilly"],
      ["manual", "not_found"],
    ]);
    expect(first.checks[2]?.exit_code).toBe(127);
    expect(first.manualSteps).toEqual(steps);
    const second = await checks(dir, { steps: [...steps, "true"], knownManual: first.manualSteps });
    expect(second.status).toBe("passed");
    expect(second.checks[2]).toMatchObject({
      kind: "manual",
      manual_reason: "known",
      ms: 0,
      exit_code: null,
    });
  });

  it("stops a step at its timeout and leaves nothing it started running", async () => {
    const dir = scratch();
    // One sleep in the step's group, one that left it for a session of its own.
    const step = "sleep 30 & echo $! > group.pid; setsid sleep 30 & echo $! > session.pid; wait";
    const result = await checks(dir, { steps: [step], timeoutMs: 500 });
    const pids = ["group.pid", "session.pid"].map((f) => Number(readFileSync(join(dir, f), "utf8").trim()));
    leftovers.push(...pids);
    expect(result.status).toBe("failed");
    expect(result.failing).toMatchObject({ step, exit_code: null, timed_out: true });
    expect(result.failing?.output_tail).toContain("stopped after 500 ms");
    expect(result.checks[0]).toMatchObject({ kind: "run", timed_out: true });
    for (const pid of pids) expect(gone(pid)).toBe(true);
  });

  it("gives steps the agent's environment without whilly's credentials, and redacts secrets in the tail", async () => {
    const dir = scratch();
    const env = {
      PATH,
      SERVICE_API_KEY: "sk-test-very-secret-value-42",
      WHILLY_WORKER_TOKEN: "worker-token-abcdefgh",
      WHILLY_ADMIN_TOKEN: "admin-token-abcdefgh",
    };
    const step =
      'echo "key=$SERVICE_API_KEY token=$(printenv WHILLY_WORKER_TOKEN || echo none) admin=$(printenv WHILLY_ADMIN_TOKEN || echo none) mark=$(test -n "$WHILLY_ATTEMPT_ID" && echo set)"; exit 1';
    const result = await checks(dir, { steps: [step], env, secrets: ["extra-secret-1234"] });
    const tail = result.failing?.output_tail ?? "";
    expect(tail).not.toContain("sk-test-very-secret-value-42");
    expect(tail).toContain("token=none");
    expect(tail).toContain("admin=none");
    expect(tail).toContain("mark=set");
    const other = await checks(dir, {
      steps: ["echo extra-secret-1234; exit 1"],
      secrets: ["extra-secret-1234"],
    });
    expect(other.failing?.output_tail).not.toContain("extra-secret-1234");
  });

  it("redacts a secret the check printed without its prefix", async () => {
    const key = "sk-ant-api03-Qx7vR2mK9pL4tZ8wN3bH6jD1fG5sY0cVeU_aT-oI";
    const env = { PATH, ANTHROPIC_API_KEY: key };
    // A shell parameter expansion that strips the prefix, not a template.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the step is shell, ${...} is the shell's
    const step = "echo tail=${ANTHROPIC_API_KEY#sk-ant-}; exit 1";
    const result = await checks(scratch(), {
      steps: [step],
      env,
    });
    const tail = result.failing?.output_tail ?? "";
    expect(tail).toContain("tail=[redacted]");
    expect(tail).not.toContain(key.slice(20, 36));
  });

  it("records a running check in the state directory, as an agent attempt is, and removes the record", async () => {
    const dir = scratch();
    const state = scratch("whilly-state-");
    const wait =
      'for i in $(seq 1 100); do ls "$STATE"/attempts/*.json > seen.txt 2>/dev/null && break; sleep 0.05; done';
    const result = await checks(dir, { steps: [wait], env: { PATH, STATE: state }, stateDir: state });
    expect(result.status).toBe("passed");
    expect(readFileSync(join(dir, "seen.txt"), "utf8")).toMatch(/attempts\/[0-9a-f-]{36}\.json/);
    expect(readdirSync(join(state, "attempts"))).toEqual([]);
  });

  it("keeps the last 4 KiB of a long output", async () => {
    const dir = scratch();
    const result = await checks(dir, { steps: ["seq 1 20000; echo the-end; exit 1"] });
    const tail = result.failing?.output_tail ?? "";
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(tail.endsWith("20000\nthe-end")).toBe(true);
  });

  it("is unverified with no steps at all, and stopped by the signal", async () => {
    const dir = scratch();
    expect((await checks(dir, {})).status).toBe("unverified");
    const stop = new AbortController();
    const running = checks(dir, { steps: ["sleep 30"], signal: stop.signal });
    setTimeout(() => stop.abort(), 100);
    expect(await running).toMatchObject({ aborted: true });
  });
});
