import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const made: string[] = [];

/** A scratch directory, removed by {@link removeScratch}. */
export function scratch(prefix = "whilly-ws-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory {@link scratch} made. */
export function removeScratch(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * An environment that keeps the machine's git configuration out: no global or system config, a home of
 * its own, and node's and git's directories on PATH.
 */
export function isolatedGitEnv(): Record<string, string> {
  const home = scratch("whilly-home-");
  const config = join(home, "gitconfig");
  writeFileSync(config, "[init]\n\tdefaultBranch = main\n");
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    GIT_CONFIG_GLOBAL: config,
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** Runs git in `dir` with `env`; its trimmed stdout. Throws on a non-zero exit. */
export function gitIn(env: Record<string, string>, dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/**
 * A repository on `main` with one commit holding `files` (default a README), and an identity of its own
 * unless `identity` is false.
 */
export function makeGitRepo(
  env: Record<string, string>,
  options: { identity?: boolean; files?: Record<string, string>; commit?: boolean } = {},
): string {
  const repo = scratch("whilly-repo-");
  gitIn(env, repo, "init", "-q", "-b", "main");
  if (options.identity !== false) {
    gitIn(env, repo, "config", "user.name", "Tester");
    gitIn(env, repo, "config", "user.email", "tester@example.com");
  }
  if (options.commit === false) return repo;
  for (const [path, text] of Object.entries(options.files ?? { "README.md": "# project\n" })) {
    writeFileSync(join(repo, path), text);
  }
  gitIn(env, repo, "add", "-A");
  const identity =
    options.identity === false ? ["-c", "user.name=Seed", "-c", "user.email=seed@example.com"] : [];
  gitIn(env, repo, ...identity, "commit", "-q", "-m", "init");
  return repo;
}
