import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import type { GitRunner } from "./git.js";

/** The user's working tree as `git status` saw it: each entry's path and its status plus content hash. */
export type UserTreeState = ReadonlyMap<string, string>;

/**
 * What `git status --porcelain` shows in the repository's own working tree (`.whilly/` left out), each
 * path with its status and content hash, so a later look can tell what changed. Agents work in
 * worktrees, but nothing stops one writing outside: this is how such writes get noticed.
 */
export async function userTreeState(git: GitRunner, top: string): Promise<UserTreeState> {
  const out = await git.ok(top, ["status", "--porcelain", "-z", "--untracked-files=all", "--no-renames"]);
  const entries = out
    .split("\0")
    .filter((e) => e.length > 3)
    .map((e) => ({ status: e.slice(0, 2), path: e.slice(3) }))
    .filter((e) => !/^\.whilly(\/|$)/.test(e.path));
  const files = entries.map((e) => e.path).filter((p) => !p.includes("\n") && isFile(join(top, p)));
  const hashes = new Map<string, string>();
  if (files.length > 0) {
    const lines = (await git.ok(top, ["hash-object", "--stdin-paths"], `${files.join("\n")}\n`)).split("\n");
    for (const [i, p] of files.entries()) hashes.set(p, lines[i] ?? "");
  }
  return new Map(entries.map((e) => [e.path, `${e.status} ${hashes.get(e.path) ?? "-"}`]));
}

/** The paths whose entry is new or different in `now` than in `before` (a change went back to clean counts too). */
export function changedPaths(before: UserTreeState, now: UserTreeState): string[] {
  const changed = new Set<string>();
  for (const [path, state] of now) if (before.get(path) !== state) changed.add(path);
  for (const path of before.keys()) if (!now.has(path)) changed.add(path);
  return [...changed].sort();
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && lstatSync(path).isFile();
  } catch {
    return false;
  }
}
