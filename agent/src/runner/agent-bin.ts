import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigurationError, describeSystemError } from "@whilly/core";

/** Where a command without a slash is looked for when the agent's environment has no PATH (libc's). */
const DEFAULT_PATH = "/usr/bin:/bin";

const CHOOSE = "or set CLAUDE_BIN to the Claude Code program (claude)";

/**
 * Checks, before the first claim, that the agent (`CLAUDE_BIN`) can be started as the runner starts it:
 * a name with a slash from `cwd`, any other along the agent environment's `PATH`, as an executable
 * file. Otherwise every task claimed would fail at once (`spawn_failed`), one after another, for a
 * mistake in the worker's own setup.
 * @param bin `CLAUDE_BIN`, or `claude`.
 * @param env the agent's environment; its `PATH` is the one searched.
 * @param cwd the agent's working directory (`--workdir`), from which a relative path is taken.
 * @throws {ConfigurationError} naming `CLAUDE_BIN`, the path and why it cannot be started (exit 2).
 */
export function checkAgentBin(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): void {
  if (bin.includes("/")) {
    const path = resolve(cwd, bin);
    const problem = programProblem(path);
    if (problem === "directory") {
      throw new ConfigurationError(`CLAUDE_BIN ${path} is a directory, not a program`, {
        hint: `name the program itself, ${CHOOSE}`,
      });
    }
    if (problem !== undefined) throw systemProblem(path, problem, cwd);
    return;
  }
  const searched = env.PATH ?? DEFAULT_PATH;
  // An empty entry of PATH is the working directory, as execvp reads it.
  const found = searched.split(":").some((dir) => programProblem(resolve(cwd, dir, bin)) === undefined);
  if (!found) {
    throw new ConfigurationError(`CLAUDE_BIN: no program '${bin}' on PATH (${searched})`, {
      hint: `install Claude Code (npm install -g @anthropic-ai/claude-code), ${CHOOSE}`,
    });
  }
}

/** Why `path` is not a program this process may run: a directory, the error of `stat` or `access`, or none. */
function programProblem(path: string): "directory" | { readonly error: unknown } | undefined {
  try {
    if (statSync(path).isDirectory()) return "directory";
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (error) {
    return { error };
  }
}

function systemProblem(path: string, problem: { readonly error: unknown }, cwd: string): unknown {
  const system = describeSystemError(problem.error);
  if (system === undefined) return problem.error;
  const { code, syscall } = problem.error as { code?: string; syscall?: string };
  const hint =
    code === "ENOENT"
      ? `check the path (a relative one is taken from the agent's working directory, ${cwd}), ${CHOOSE}`
      : code === "EACCES" && syscall === "access"
        ? `make it executable (chmod +x ${path}), ${CHOOSE}`
        : `${system.hint}; ${CHOOSE}`;
  return new ConfigurationError(`CLAUDE_BIN: ${system.message}`, { cause: problem.error, hint });
}
