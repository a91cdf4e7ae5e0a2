import { spawnSync } from "node:child_process";
import { gitBranchNameProblem } from "@whilly/core";
import { describe, expect, it } from "vitest";

const refused = [
  "",
  "-x",
  "--upload-pack=touch /tmp/x",
  "x:refs/heads/main",

  "refs/heads/*",
  "a..b",
  "refs/heads/..",
  "a b",
  "a\tb",
  "a\u001b[31m",
  "a\u007f",
  "a~1",
  "a^",
  "a?",
  "a[b",
  "a\\b",
  "HEAD",
  "@",
  "@{-1}",
  "a@{u}",
  "a.lock",
  "a.lock/b",
  "a/.b",
  ".a",
  "a.",
  "a/",
  "/a",
  "a//b",
];
const taken = [
  "whilly-tasks/p/t",
  "whilly-tasks/plan-3f2a1c/a.b",
  "feature/é",
  "a@b",
  "a/-b",
  "x".repeat(256),
];

/** What `git check-ref-format --branch` says of `name` (outside any repository). */
function gitTakes(name: string): boolean {
  return spawnSync("git", ["check-ref-format", "--branch", name], { cwd: "/" }).status === 0;
}

describe("gitBranchNameProblem", () => {
  it.each(refused)("refuses %j, which git refuses too or reads as something else", (name) => {
    expect(gitBranchNameProblem(name)).toBeTypeOf("string");
  });

  it.each(taken)("takes %j, as git does", (name) => {
    expect(gitBranchNameProblem(name)).toBeUndefined();
    expect(gitTakes(name)).toBe(true);
  });

  it("never takes a name git refuses", () => {
    for (const name of refused) if (!gitTakes(name)) expect(gitBranchNameProblem(name)).toBeDefined();
  });

  it("says what is wrong", () => {
    expect(gitBranchNameProblem("x:refs/heads/main")).toBe(
      `holds ":", which git does not take in a branch name`,
    );
    expect(gitBranchNameProblem("-x")).toBe("starts with '-', which git reads as an option");
  });
});
