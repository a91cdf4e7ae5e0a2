import { existsSync, lstatSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "./git.js";

/** The file, in a worktree's own git directory, listing what its setup command created. */
const SETUP_PATHS_FILE = "whilly-setup-paths.json";

/** The largest file {@link commitLeftovers} commits by default, bytes (50 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;

/** What the setup command left: untracked entries (a directory as one, `dir/`) and each file's blob hash. */
type SetupRecord = { readonly entries: readonly string[]; readonly hashes: Readonly<Record<string, string>> };

/** A file {@link commitLeftovers} left out for its size. */
export type OversizedFile = { readonly path: string; readonly bytes: number };

/** What {@link commitLeftovers} did. */
export type LeftoversResult = {
  /** The new commit, or `undefined` when nothing was left to commit. */
  readonly commit: string | undefined;
  /** Files left out, uncommitted, for being larger than the limit; paths relative to the worktree. */
  readonly tooLarge: readonly OversizedFile[];
};

/** Where the worktree at `dir` keeps its private git state (`.git/worktrees/<name>`). */
async function worktreeGitDir(git: GitRunner, dir: string): Promise<string> {
  return (await git.ok(dir, ["rev-parse", "--absolute-git-dir"])).trim();
}

const split = (out: string) => out.split("\0").filter((p) => p !== "");

/** Blob hashes of `paths` (files in `dir`), as git would store them. */
async function hashes(
  git: GitRunner,
  dir: string,
  paths: readonly string[],
): Promise<Record<string, string>> {
  // One path a line: a path holding a newline gets no hash, so it counts as changed (committed).
  const plain = paths.filter((p) => !p.includes("\n") && existsSync(join(dir, p)));
  if (plain.length === 0) return {};
  const out = await git.ok(dir, ["hash-object", "--stdin-paths"], `${plain.join("\n")}\n`);
  const lines = out.split("\n");
  return Object.fromEntries(plain.map((p, i) => [p, lines[i] ?? ""]));
}

/**
 * Records the untracked paths in the worktree at `dir` now (after the setup command ran: `node_modules/`,
 * a virtualenv) and each untracked file's content hash, so {@link commitLeftovers} leaves out what the
 * setup made and nobody changed since. Untracked directories count as one path.
 * @returns the recorded paths, relative to `dir`.
 */
export async function recordSetupPaths(git: GitRunner, dir: string): Promise<string[]> {
  const entries = split(
    await git.ok(dir, ["ls-files", "--others", "--exclude-standard", "--directory", "-z"]),
  );
  const files = split(await git.ok(dir, ["ls-files", "--others", "--exclude-standard", "-z"]));
  const record: SetupRecord = { entries, hashes: await hashes(git, dir, files) };
  await writeFile(join(await worktreeGitDir(git, dir), SETUP_PATHS_FILE), JSON.stringify(record));
  return entries;
}

async function readRecord(git: GitRunner, dir: string): Promise<SetupRecord> {
  const file = join(await worktreeGitDir(git, dir), SETUP_PATHS_FILE);
  if (!existsSync(file)) return { entries: [], hashes: {} };
  const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((p): p is string => typeof p === "string") : [];
  // A record from before hashes were kept: a plain list, left out whole.
  if (Array.isArray(parsed)) return { entries: strings(parsed), hashes: {} };
  const rec = parsed as { entries?: unknown; hashes?: unknown };
  const h =
    typeof rec.hashes === "object" && rec.hashes !== null ? (rec.hashes as Record<string, string>) : {};
  return { entries: strings(rec.entries), hashes: h };
}

/** The paths {@link recordSetupPaths} recorded for the worktree at `dir`; none when it never ran. */
export async function setupPaths(git: GitRunner, dir: string): Promise<string[]> {
  return [...(await readRecord(git, dir)).entries];
}

/**
 * Commits what the agent left uncommitted in the worktree at `dir`: every change and new file except
 * what its setup command created and nobody changed since ({@link recordSetupPaths}; a setup-made file
 * the agent wrote to is committed, a new file inside a setup-made directory is not), and files larger
 * than `maxFileBytes` (reported in `tooLarge`), as `whilly: <task id>: <first line of the description>`.
 * Hooks are skipped (`--no-verify`): whilly's own checks judge the work, and a failing hook must not
 * lose it. `commitArgs` carries the identity fallback.
 * @throws ConfigurationError when git fails.
 */
export async function commitLeftovers(
  git: GitRunner,
  dir: string,
  commitArgs: readonly string[],
  task: { readonly id: string; readonly description: string },
  maxFileBytes: number = DEFAULT_MAX_FILE_BYTES,
): Promise<LeftoversResult> {
  await git.ok(dir, ["add", "-A"]);
  const record = await readRecord(git, dir);
  const added = split(
    await git.ok(dir, ["diff", "--cached", "--name-only", "--no-renames", "--diff-filter=A", "-z"]),
  );
  const recordedNow = await hashes(
    git,
    dir,
    added.filter((p) => record.hashes[p] !== undefined),
  );
  const setupMade = added.filter((p) => {
    const hash = record.hashes[p];
    if (hash !== undefined) return recordedNow[p] === hash;
    return record.entries.some((e) => e === p || (e.endsWith("/") && p.startsWith(e)));
  });
  const changed = split(
    await git.ok(dir, ["diff", "--cached", "--name-only", "--no-renames", "--diff-filter=AM", "-z"]),
  );
  const tooLarge: OversizedFile[] = [];
  for (const path of changed) {
    if (setupMade.includes(path)) continue;
    const bytes = sizeOf(join(dir, path));
    if (bytes > maxFileBytes) tooLarge.push({ path, bytes });
  }
  const leftOut = [...setupMade, ...tooLarge.map((f) => f.path)];
  if (leftOut.length > 0) {
    const args = ["--literal-pathspecs", "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"];
    await git.ok(dir, args, leftOut.join("\0"));
  }
  const staged = await git.run(dir, ["diff", "--cached", "--quiet"]);
  if (staged.code === 0) return { commit: undefined, tooLarge };
  await git.ok(dir, [...commitArgs, "commit", "-q", "--no-verify", "-m", commitMessage(task)]);
  return { commit: (await git.ok(dir, ["rev-parse", "HEAD"])).trim(), tooLarge };
}

function sizeOf(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** `whilly: <id>: <first line of the description>`, the line cut at 72 characters. */
export function commitMessage(task: { readonly id: string; readonly description: string }): string {
  const first = task.description.trim().split("\n")[0]?.trim() ?? "";
  const line = first.length > 72 ? `${first.slice(0, 71)}…` : first;
  return line === "" ? `whilly: ${task.id}` : `whilly: ${task.id}: ${line}`;
}
