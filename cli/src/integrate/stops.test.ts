import { describe, expect, it } from "vitest";
import { abandonStep, type StopContext } from "./stops.js";

const at: StopContext = {
  top: "/src/app",
  dir: "/src/app/.whilly/integrate/whilly-p-1",
  branch: "whilly/p",
  remote: "origin",
  rerun: "whilly plan integrate p",
  ownBranch: true,
};

describe("abandonStep", () => {
  it("removes the worktree, the branch integrate made and its verified ref", () => {
    expect(abandonStep(at)).toBe(
      "or abandon this integration (removes the worktree and the branch): git -C /src/app worktree remove --force /src/app/.whilly/integrate/whilly-p-1 && git -C /src/app branch -D whilly/p && git -C /src/app update-ref -d refs/whilly/verified/whilly/p",
    );
  });

  it("never deletes a branch integrate did not make (--into an existing branch)", () => {
    const step = abandonStep({ ...at, branch: "release/x", ownBranch: false });
    expect(step).toBe(
      "or abandon this integration: git -C /src/app worktree remove --force /src/app/.whilly/integrate/whilly-p-1 (release/x is not integrate's own: put it back yourself, git -C /src/app reflog show release/x lists where it was)",
    );
  });
});
