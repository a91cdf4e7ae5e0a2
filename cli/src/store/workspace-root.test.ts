import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findWorkspace, prepareWhillyDir } from "./workspace-root.js";

const temp = () => mkdtempSync(join(tmpdir(), "whilly-ws-"));

describe("workspace root", () => {
  it("puts .whilly at the git root and keeps it out of git status", () => {
    const repo = temp();
    execFileSync("git", ["init", "-q", repo]);
    const sub = join(repo, "a", "b");
    mkdirSync(sub, { recursive: true });
    const layout = findWorkspace(sub);
    expect(layout.root).toBe(repo);
    prepareWhillyDir(layout);
    prepareWhillyDir(layout);
    writeFileSync(join(layout.whillyDir, "x"), "y");
    const exclude = readFileSync(join(repo, ".git", "info", "exclude"), "utf8");
    expect(exclude.match(/\/\.whilly\//g)).toHaveLength(1);
    expect(execFileSync("git", ["-C", repo, "status", "--porcelain"], { encoding: "utf8" })).toBe("");
  });

  it("uses the current directory outside a repository", () => {
    const dir = temp();
    const layout = findWorkspace(dir);
    expect(layout.root).toBe(dir);
    expect(layout.gitCommonDir).toBeUndefined();
  });

  it("follows a worktree's .git file to the common git directory", () => {
    const repo = temp();
    execFileSync("git", ["init", "-q", repo]);
    execFileSync("git", [
      "-C",
      repo,
      "-c",
      "user.email=a@b",
      "-c",
      "user.name=a",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "i",
    ]);
    const tree = join(temp(), "wt");
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", tree]);
    const layout = findWorkspace(tree);
    expect(layout.root).toBe(tree);
    prepareWhillyDir(layout);
    expect(readFileSync(join(repo, ".git", "info", "exclude"), "utf8")).toContain("/.whilly/");
    expect(execFileSync("git", ["-C", tree, "status", "--porcelain"], { encoding: "utf8" })).toBe("");
  });
});
