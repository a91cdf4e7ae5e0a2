#!/usr/bin/env node
// Records what the real Codex CLI (node_modules/.bin/codex) prints with `exec --json` against the fake
// Responses API, one scenario per file, into test/fixtures/codex/: `<name>.jsonl` (stdout) and
// `<name>.meta.json` (exit code, stderr, the model). The Codex adapter's parser tests read them. Run
// after upgrading @openai/codex: `npm run build && node scripts/record-codex-fixtures.mjs [name...]`.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeCodexEnv, startFakeOpenAI } from "../test/fake-openai/dist/index.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = join(root, "test/fixtures/codex");
const bin = join(root, "node_modules/.bin/codex");
const MODEL = "gpt-5-codex";
const PROMPT = "Task id: T-1\nCreate hello.txt with the text hi, then end with <promise>COMPLETE</promise>.";
const write = { name: "exec_command", arguments: { cmd: "printf hi > hello.txt", workdir: "{{cwd}}" } };
const usage = (input, cached, output, reasoning) => ({
  input_tokens: input,
  cached_tokens: cached,
  output_tokens: output,
  reasoning_tokens: reasoning,
});
const story = (turns, fault) => ({ default: { turns, ...(fault ? { fault } : {}) } });
const fail = (fault) => story([], fault);
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/** Each scenario: the fake's script, extra CLI flags, and how the environment differs. */
const SCENARIOS = {
  happy: story([
    { call: write, usage: usage(1200, 300, 40, 12) },
    { text: "Created hello.txt.\n<promise>COMPLETE</promise>", usage: usage(1300, 1100, 20, 0) },
  ]),
  "no-marker": story([{ call: write }, { text: "I created hello.txt." }]),
  "talk-then-work": story([
    { text: "I will print <promise>COMPLETE</promise> when done.", call: write },
    { text: "All done: hello.txt holds hi.\n\n<promise>COMPLETE</promise>\n" },
  ]),
  "command-fails": story([
    { call: { name: "exec_command", arguments: { cmd: "cat missing.txt" } } },
    { text: "The file is missing; I stop here." },
  ]),
  answer: {
    script: { default: { turns: [{ text: '{"tasks": []}' }] } },
    flags: ["--ephemeral", "-s", "read-only", "--disable", "shell_tool"],
  },
  "http-500": fail({ status: 500 }),
  "usage-limit": fail({ status: 429, type: "usage_limit_reached", resets_at: inAnHour() }),
  "usage-limit-later": fail({ status: 429, type: "usage_limit_reached" }),
  "rate-limit-429": fail({ status: 429, code: "rate_limit_exceeded", message: "Rate limit reached." }),
  "rate-limit-failed": fail({
    kind: "failed",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for gpt-5-codex. Please try again in 2.4s.",
  }),
  "auth-401": fail({
    status: 401,
    code: "invalid_api_key",
    message: "Incorrect API key provided: sk-fake-****. You can find your API key at the dashboard.",
  }),
  "missing-key": { script: story([{ text: "never sent" }]), dropKey: true },
  "stream-cut": fail("cut"),
  "second-turn-cut": story([{ call: write }, { fault: "cut", text: "never sent" }]),
};

/** Runs one scenario in a throwaway home and project, and writes its two files. */
async function record(name, scenario) {
  const { script, flags = [], dropKey = false } = "script" in scenario ? scenario : { script: scenario };
  const fake = await startFakeOpenAI({ script });
  const dir = mkdtempSync(join(tmpdir(), "whilly-codex-record-"));
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  const env = fakeCodexEnv({ baseUrl: fake.url, home: join(dir, "home") });
  if (dropKey) delete env.FAKE_OPENAI_API_KEY;
  const argv = ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"];
  argv.push("-C", project, "-m", MODEL, ...flags, "--", PROMPT);
  const started = performance.now();
  const run = await new Promise((resolve) => {
    const child = spawn(bin, argv, { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
  const ms = Math.round(performance.now() - started);
  await fake.close();
  // Paths of the throwaway directory would differ per recording; the fixtures name a fixed one.
  const clean = (text) => text.replaceAll(dir, "/tmp/whilly-codex-record");
  writeFileSync(join(out, `${name}.jsonl`), clean(run.stdout));
  const meta = { exitCode: run.exitCode, stderr: clean(run.stderr), model: MODEL, recordedAt: new Date() };
  writeFileSync(join(out, `${name}.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  console.log(`${name}: exit ${run.exitCode} in ${ms} ms`);
}

mkdirSync(out, { recursive: true });
const wanted = process.argv.slice(2);
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (wanted.length === 0 || wanted.includes(name)) await record(name, scenario);
}
