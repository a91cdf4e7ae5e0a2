import { join } from "node:path";
import { gitIn, makeGitRepo, scratch } from "./git-repo.js";

/**
 * A bare `origin` seeded with one commit holding `files`, and `clones` clones of it (each with an
 * identity of its own), as workers on separate machines have.
 */
export function originWithClones(
  env: Record<string, string>,
  clones: number,
  files: Record<string, string> = { "README.md": "# project\n" },
): { origin: string; clones: string[] } {
  const seed = makeGitRepo(env, { files });
  const origin = join(scratch("whilly-origin-"), "origin.git");
  gitIn(env, seed, "clone", "-q", "--bare", seed, origin);
  const made = Array.from({ length: clones }, (_, i) => {
    const dir = join(scratch("whilly-clone-"), `clone-${i + 1}`);
    gitIn(env, seed, "clone", "-q", origin, dir);
    gitIn(env, dir, "config", "user.name", `Worker ${i + 1}`);
    gitIn(env, dir, "config", "user.email", `worker${i + 1}@example.com`);
    return dir;
  });
  return { origin, clones: made };
}
