#!/usr/bin/env node
// The demo: `whilly run examples/demo.tasks.json` on the embedded store, with the real Claude Code CLI
// (the pinned devDependency) talking to the project's scripted fake of the Anthropic Messages API.
// No account or network is needed; the model's replies are scripted, so nothing here is real model work.
// `node scripts/demo.mjs [PLAN] [SCRIPT]` runs another plan and script (docs/fake-model.md), e.g. your own
// plan with examples/any-plan.script.json, whose default story answers every task.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const whilly = join(root, "cli", "bin", "whilly.js");
const claude = join(root, "node_modules", ".bin", "claude");
const fakeDist = join(root, "test", "fake-anthropic", "dist", "index.js");
const planArg = process.argv[2] ?? "examples/demo.tasks.json";
const plan = resolve(root, planArg);
const script = resolve(root, process.argv[3] ?? "test/fixtures/scripts/demo.json");

for (const [path, fix] of [
  [join(root, "cli", "dist", "main.js"), "npm ci (it builds every workspace)"],
  [fakeDist, "npm ci (it builds every workspace)"],
  [claude, "npm ci (Claude Code is a devDependency)"],
]) {
  if (!existsSync(path)) {
    console.error(`error: ${relative(root, path)} is missing\nhint: run ${fix}`);
    process.exit(2);
  }
}

const { startFakeAnthropic, fakeClaudeEnv } = await import(fakeDist);
const work = mkdtempSync(join(tmpdir(), "whilly-demo-"));
const repo = join(work, "repo");
mkdirSync(repo);
await run("git", ["init", "-q"], { cwd: repo });
// whilly runs each task in a worktree, which needs a first commit; the demo's own identity makes it.
await run(
  "git",
  [
    "-c",
    "user.name=whilly demo",
    "-c",
    "user.email=demo@localhost",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "init",
  ],
  {
    cwd: repo,
  },
);
copyFileSync(plan, join(repo, "tasks.json"));

const fake = await startFakeAnthropic({ scriptFile: script });
const banner = [
  "┌──────────────────────────────────────────────────────────────────────────────┐",
  "│ whilly demo: the real Claude Code CLI, driven by a SCRIPTED model (no API,   │",
  "│ no account). Every file below is written by Claude Code's own tools.         │",
  "└──────────────────────────────────────────────────────────────────────────────┘",
];
console.error(banner.join("\n"));
console.error(`demo repository: ${repo}\nscripted model:  ${fake.url}\n`);

const env = {
  ...fakeClaudeEnv({ baseUrl: fake.url, home: join(work, "home") }),
  CLAUDE_BIN: claude,
  WHILLY_MODEL: "claude-sonnet-4-6",
  ...(process.env.NO_COLOR === undefined ? {} : { NO_COLOR: process.env.NO_COLOR }),
};
let code;
try {
  code = await run(process.execPath, [whilly, "run", "tasks.json", "--task-timeout", "2m"], {
    cwd: repo,
    env,
  });
} finally {
  await fake.close();
}
const files = readdirSync(repo, { recursive: true })
  .map(String)
  .filter((f) => !f.startsWith(".git") && !f.startsWith(".whilly") && f !== "tasks.json")
  .sort();
console.error(`\nfiles Claude Code wrote in ${repo}:\n${files.map((f) => `  ${f}`).join("\n")}`);
console.error(
  "\nFor real work: in your repository, with Claude Code logged in, run `whilly run path/to/tasks.json`\n(with `whilly` linked as the README's Quick start shows).",
);
process.exit(code);

function run(command, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: "inherit", ...options });
    child.on("error", reject);
    child.on("close", (status, signal) => resolvePromise(status ?? (signal ? 128 : 1)));
  });
}
