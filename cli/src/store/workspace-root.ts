import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Where whilly keeps its embedded store for a working directory. */
export type WorkspaceLayout = {
  /** The git repository root, or the working directory outside a repository. */
  readonly root: string;
  /** `<root>/.whilly` */
  readonly whillyDir: string;
  /** The git directory holding `info/exclude`, when `root` is a repository. */
  readonly gitCommonDir: string | undefined;
};

/**
 * Finds the repository root above `cwd` (a `.git` directory, or a `.git` file for worktrees and
 * submodules). Outside a repository the root is `cwd` itself.
 */
export function findWorkspace(cwd: string): WorkspaceLayout {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    if (existsSync(dotGit))
      return { root: dir, whillyDir: join(dir, ".whilly"), gitCommonDir: commonDir(dotGit) };
    if (dirname(dir) === dir) break;
  }
  const root = resolve(cwd);
  return { root, whillyDir: join(root, ".whilly"), gitCommonDir: undefined };
}

/**
 * Creates `.whilly/` (private to this user, 0700, when new: it holds the store and its socket) and
 * keeps it out of git through `info/exclude` (never the user's `.gitignore`). Idempotent.
 */
export function prepareWhillyDir(layout: WorkspaceLayout): void {
  mkdirSync(layout.whillyDir, { recursive: true, mode: 0o700 });
  if (!layout.gitCommonDir) return;
  const exclude = join(layout.gitCommonDir, "info", "exclude");
  const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
  if (current.split(/\r?\n/).some((line) => line.trim() === "/.whilly/" || line.trim() === ".whilly/"))
    return;
  mkdirSync(dirname(exclude), { recursive: true });
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  appendFileSync(exclude, `${separator}# whilly's embedded store\n/.whilly/\n`);
}

function commonDir(dotGit: string): string | undefined {
  if (statSync(dotGit).isDirectory()) return dotGit;
  const match = /^gitdir:\s*(.+)\s*$/m.exec(readFileSync(dotGit, "utf8"));
  if (!match?.[1]) return undefined;
  const gitDir = resolve(dirname(dotGit), match[1]);
  const commonFile = join(gitDir, "commondir");
  if (!existsSync(commonFile)) return gitDir;
  const common = readFileSync(commonFile, "utf8").trim();
  return isAbsolute(common) ? common : resolve(gitDir, common);
}
