/**
 * Records the real Gemini CLI's `stream-json` output against the fake into test/fixtures/gemini/, one
 * JSON file per case (`{exit_code, stdout, stderr}`), for the adapter's parser tests. Run from the repo
 * root after a Gemini CLI upgrade: `npx tsx test/fake-gemini/scripts/record-fixtures.ts`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeGeminiScript, fakeGeminiEnv, startFakeGemini } from "../src/index.js";

type Case = {
  readonly name: string;
  readonly script: FakeGeminiScript;
  readonly prompt?: string;
  readonly settings?: Record<string, unknown>;
  readonly noKey?: boolean;
};

const HELLO: FakeGeminiScript = {
  default: {
    turns: [
      {
        text: "I'll create the file.",
        function_calls: [{ name: "write_file", args: { file_path: "hello.txt", content: "hi\n" } }],
        usage: { prompt_tokens: 9000, candidates_tokens: 30, cached_tokens: 0, thoughts_tokens: 12 },
      },
      {
        function_calls: [
          { name: "run_shell_command", args: { command: "cat hello.txt", description: "Show the file" } },
        ],
        usage: { prompt_tokens: 9100, candidates_tokens: 20, cached_tokens: 8000, thoughts_tokens: 0 },
      },
      {
        text: "hello.txt holds hi.\n\n<promise>COMPLETE</promise>",
        usage: { prompt_tokens: 9200, candidates_tokens: 15, cached_tokens: 8000, thoughts_tokens: 5 },
      },
    ],
  },
};

const fault = (f: NonNullable<FakeGeminiScript["fault"]>): FakeGeminiScript => ({
  default: { turns: [], fault: f },
});

const CASES: readonly Case[] = [
  { name: "happy", script: HELLO },
  { name: "no-marker", script: { default: { turns: [{ text: "I looked at it but did nothing." }] } } },
  { name: "server-500", script: fault({ status: 500 }) },
  {
    name: "quota-429",
    script: fault({
      status: 429,
      message:
        "Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com' for consumer 'project_number:123'.",
    }),
  },
  {
    name: "quota-daily",
    script: fault({
      status: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      quota_id: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
      retry_delay: 43,
    }),
  },
  { name: "auth-401", script: fault({ status: 401 }) },
  { name: "auth-403", script: fault({ status: 403 }) },
  {
    name: "auth-key-invalid",
    script: fault({
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
      reason: "API_KEY_INVALID",
    }),
  },
  { name: "cut", script: { default: { turns: [{ text: "x", fault: "cut" }] } } },
  { name: "no-key", script: HELLO, noKey: true },
  {
    name: "max-turns",
    script: {
      default: { turns: [{ function_calls: [{ name: "run_shell_command", args: { command: "true" } }] }] },
    },
    settings: { model: { maxSessionTurns: 1 } },
  },
];

const root = process.cwd();
const out = join(root, "test/fixtures/gemini");
mkdirSync(out, { recursive: true });
const gemini = join(root, "node_modules/.bin/gemini");
const work = mkdtempSync(join(tmpdir(), "record-gemini-"));
try {
  for (const c of CASES) {
    const fake = await startFakeGemini({ script: c.script });
    const home = join(work, c.name, "home");
    const project = join(work, c.name, "project");
    mkdirSync(project, { recursive: true });
    const env = fakeGeminiEnv({ baseUrl: fake.url, home, ...(c.settings ? { settings: c.settings } : {}) });
    if (c.noKey) delete env.GEMINI_API_KEY;
    const started = performance.now();
    const run = await runCli(gemini, c.prompt ?? "Create hello.txt with the text hi.", project, env);
    await fake.close();
    const scrub = (s: string) => s.replaceAll(work, "/tmp/work");
    const record = { exit_code: run.status, stdout: scrub(run.stdout), stderr: scrub(run.stderr) };
    writeFileSync(join(out, `${c.name}.json`), `${JSON.stringify(record, null, 2)}\n`);
    console.log(`${c.name}: exit ${run.status} in ${Math.round(performance.now() - started)} ms`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Runs the CLI without blocking this process's event loop (the fake answers from it). */
function runCli(bin: string, prompt: string, cwd: string, env: Record<string, string>) {
  const args = [
    "--output-format",
    "stream-json",
    "--model",
    "gemini-2.5-pro",
    "--skip-trust",
    "--approval-mode",
    "yolo",
    `--prompt=${prompt}`,
  ];
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
