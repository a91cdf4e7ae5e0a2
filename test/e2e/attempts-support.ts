import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EventRecord, TaskRecord } from "@whilly/core";
import {
  type FakeAnthropic,
  type FakeScript,
  fakeClaudeEnv,
  type RequestLogEntry,
  startFakeAnthropic,
} from "@whilly/fake-anthropic";
import { GIT_TEST_IDENTITY, makeRepo, ROOT, runBin, scratchDir, withStore } from "../support/cli.js";

/**
 * Shared setup of the end-to-end tests of whilly's attempts (worktrees, checks, retries, limits,
 * stalls): the built `whilly run` as a process, the REAL Claude Code CLI, and one scripted fake model
 * per test file holding every task's story (task ids are unique per file, so tests do not meet).
 * Every pause, backoff and timeout is short, so each test takes seconds.
 */

/** The real Claude Code CLI (the pinned devDependency). */
export const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");

/** A task of a plan file, as the tests write it: what differs from a plain task. */
export type TaskFields = {
  readonly id: string;
  readonly test_steps?: readonly string[];
  readonly dependencies?: readonly string[];
  readonly key_files?: readonly string[];
  readonly priority?: string;
};

/** Writes `<repo>/tasks.json`: a plan whose tasks pass the decision gate, with the fields given. */
export function writePlan(
  repo: string,
  planId: string,
  tasks: readonly TaskFields[],
  plan: { verify?: readonly string[]; max_attempts?: number } = {},
): void {
  const file = {
    project: `Project ${planId}`,
    plan_id: planId,
    ...plan,
    tasks: tasks.map((t) => ({
      id: t.id,
      status: "pending",
      priority: t.priority ?? "medium",
      description: `Do the work of ${t.id} carefully.`,
      dependencies: t.dependencies ?? [],
      key_files: t.key_files ?? [],
      acceptance_criteria: [`${t.id} is done`],
      test_steps: t.test_steps ?? ["true"],
    })),
  };
  writeFileSync(join(repo, "tasks.json"), JSON.stringify(file, null, 2));
}

/** Writes files into the repository and commits them on its branch (the user's own work). */
export function commitFiles(repo: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  execFileSync("git", ["add", ...Object.keys(files)], { cwd: repo });
  execFileSync("git", [...GIT_TEST_IDENTITY, "commit", "-q", "-m", "the user's files"], { cwd: repo });
}

/** A file-writing turn of a story: Claude Code's own Write tool, in the session's directory. */
export function write(path: string, content: string) {
  return { tool_use: { name: "Write", input: { file_path: `{{cwd}}/${path}`, content } } };
}

/** A Bash turn of a story. */
export function bash(command: string) {
  return { tool_use: { name: "Bash", input: { command, description: "Run it" } } };
}

/** The last turn of a story that claims completion. */
export const COMPLETE = { text: "Done.\n\n<promise>COMPLETE</promise>" };

/** The settings that keep every wait short: retries at once, a 1 s limit pause, fast heartbeats. */
export const SHORT_WAITS: Readonly<Record<string, string>> = {
  WHILLY_RETRY_BACKOFF: "0",
  WHILLY_LIMIT_BACKOFF: "1s",
  WHILLY_HEARTBEAT_INTERVAL: "0.2",
  WHILLY_PROGRESS_INTERVAL: "0.5",
  WHILLY_CLAUDE_KILL_GRACE_MS: "300",
};

/** Starts the file's fake model with `script`; close it in `afterAll`. */
export function startFake(script: FakeScript): Promise<FakeAnthropic> {
  return startFakeAnthropic({ script });
}

/** A fresh repository (with a first commit and the embedded store from `template`). */
export function repoFrom(template: string): string {
  return makeRepo(template);
}

/**
 * Runs `whilly run tasks.json <argv>` in `repo` with Claude Code pointed at `fake`, {@link SHORT_WAITS}
 * and `extra` settings.
 */
export function runPlan(
  repo: string,
  fake: FakeAnthropic,
  argv: readonly string[] = [],
  extra: Readonly<Record<string, string>> = {},
) {
  const env: Record<string, string> = {
    ...fakeClaudeEnv({ baseUrl: fake.url, home: scratchDir("whilly-claude-home-") }),
    CLAUDE_BIN: CLAUDE,
    WHILLY_MODEL: "claude-sonnet-4-6",
    ...SHORT_WAITS,
    ...extra,
  };
  return runBin(["run", "tasks.json", "--task-timeout", "90s", ...argv], { cwd: repo, env });
}

/** The plan's tasks and events as the run left them. */
export function recordsOf(
  repo: string,
  planId: string,
): Promise<{ tasks: TaskRecord[]; events: EventRecord[] }> {
  return withStore(repo, async (store) => ({
    tasks: await store.listTasks(planId),
    events: await store.listEvents(planId, { limit: 100_000 }),
  }));
}

/** The events of one task, by type. */
export function eventsOfTask(events: readonly EventRecord[], taskId: string, type?: string): EventRecord[] {
  return events.filter((e) => e.taskId === taskId && (type === undefined || e.eventType === type));
}

/** The fake's requests for one task's story, the main agent thread only. */
export function agentRequests(fake: FakeAnthropic, taskId: string): RequestLogEntry[] {
  return fake.requests().filter((r) => r.kind === "agent" && r.script === taskId);
}

/** When the fake first and last heard from a task's agent (ms since the epoch). */
export function activeSpan(fake: FakeAnthropic, taskId: string): { from: number; to: number } {
  const times = agentRequests(fake, taskId).map((r) => Date.parse(r.at));
  return { from: Math.min(...times), to: Math.max(...times) };
}

/** A file's content on a branch (or commit) of the repository; `undefined` when it has none. */
export function fileAt(repo: string, ref: string, path: string): string | undefined {
  try {
    return execFileSync("git", ["show", `${ref}:${path}`], { cwd: repo, encoding: "utf8", stdio: "pipe" });
  } catch {
    return undefined;
  }
}
