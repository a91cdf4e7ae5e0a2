import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "./git.js";

/** The file, in a worktree's own git directory, listing what its setup command created. */
const SETUP_PATHS_FILE = "whilly-setup-paths.json";

/** Where the worktree at `dir` keeps its private git state (`.git/worktrees/<name>`). */
async function worktreeGitDir(git: GitRunner, dir: string): Promise<string> {
  return (await git.ok(dir, ["rev-parse", "--absolute-git-dir"])).trim();
}

/**
 * Records the untracked paths in the worktree at `dir` now (after the setup command ran: `node_modules/`,
 * a virtualenv), so {@link commitLeftovers} leaves them out. Untracked directories count as one path.
 * @returns the recorded paths, relative to `dir`.
 */
export async function recordSetupPaths(git: GitRunner, dir: string): Promise<string[]> {
  const out = await git.ok(dir, ["ls-files", "--others", "--exclude-standard", "--directory", "-z"]);
  const paths = out.split("\0").filter((p) => p !== "");
  await writeFile(join(await worktreeGitDir(git, dir), SETUP_PATHS_FILE), JSON.stringify(paths));
  return paths;
}

/** The paths {@link recordSetupPaths} recorded for the worktree at `dir`; none when it never ran. */
export async function setupPaths(git: GitRunner, dir: string): Promise<string[]> {
  const file = join(await worktreeGitDir(git, dir), SETUP_PATHS_FILE);
  if (!existsSync(file)) return [];
  const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
  return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === "string") : [];
}

/**
 * Commits what the agent left uncommitted in the worktree at `dir`: every change and new file except
 * those its setup command created ({@link recordSetupPaths}), as `whilly: <task id>: <first line of the
 * description>`. Hooks are skipped (`--no-verify`): whilly's own checks judge the work, and a failing hook
 * must not lose it. `commitArgs` carries the identity fallback.
 * @returns the new commit, or `undefined` when nothing was left to commit.
 * @throws ConfigurationError when git fails.
 */
export async function commitLeftovers(
  git: GitRunner,
  dir: string,
  commitArgs: readonly string[],
  task: { readonly id: string; readonly description: string },
): Promise<string | undefined> {
  await git.ok(dir, ["add", "-A"]);
  const excluded = await setupPaths(git, dir);
  if (excluded.length > 0) {
    await git.ok(dir, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], excluded.join("\0"));
  }
  const staged = await git.run(dir, ["diff", "--cached", "--quiet"]);
  if (staged.code === 0) return undefined;
  await git.ok(dir, [...commitArgs, "commit", "-q", "--no-verify", "-m", commitMessage(task)]);
  return (await git.ok(dir, ["rev-parse", "HEAD"])).trim();
}

/** `whilly: <id>: <first line of the description>`, the line cut at 72 characters. */
export function commitMessage(task: { readonly id: string; readonly description: string }): string {
  const first = task.description.trim().split("\n")[0]?.trim() ?? "";
  const line = first.length > 72 ? `${first.slice(0, 71)}…` : first;
  return line === "" ? `whilly: ${task.id}` : `whilly: ${task.id}: ${line}`;
}
