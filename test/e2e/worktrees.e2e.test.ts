import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic } from "@whilly/fake-anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStoreTemplate, removeAll } from "../support/cli.js";
import {
  COMPLETE,
  commitFiles,
  fileAt,
  recordsOf,
  repoFrom,
  runPlan,
  startFake,
  write,
  writePlan,
} from "./attempts-support.js";

// Where a run's work goes, with the real Claude Code CLI against the scripted fake model: a plan whose
// steps are prose is DONE unverified on the user's branch; a working tree with changes is left alone.
let template: string;
let fake: FakeAnthropic;
beforeAll(async () => {
  [template, fake] = await Promise.all([
    makeStoreTemplate(),
    startFake({
      tasks: {
        "H-1": { turns: [write("H1.txt", "h1\n"), COMPLETE] },
        "K-1": { turns: [write("K1.txt", "k1\n"), COMPLETE] },
      },
    }),
  ]);
});
afterAll(async () => {
  await fake?.close();
  removeAll();
});

describe("whilly run's work on the user's branch", () => {
  it("imports a plan whose steps are prose with a warning, and its task ends DONE unverified", async () => {
    const repo = repoFrom(template);
    writePlan(repo, "prose", [
      { id: "H-1", test_steps: ["Проверить что файл создан", "Verify that the page loads in a browser."] },
    ]);
    const result = await runPlan(repo, fake);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/warning: .*H-1.*manual:/);
    expect(result.out).toMatch(/^H-1 +DONE +1\/3 .* unverified$/m);
    const { tasks } = await recordsOf(repo, "prose");
    expect(tasks[0]).toMatchObject({ status: "DONE", verification: "unverified" });
    expect(fileAt(repo, "main", "H1.txt")).toBe("h1\n");
    expect(existsSync(join(repo, "H1.txt"))).toBe(true);
  }, 120_000);

  it("leaves a working tree with changes alone and prints the one git command that takes the work", async () => {
    const repo = repoFrom(template);
    commitFiles(repo, { "notes.txt": "mine\n" });
    writeFileSync(join(repo, "notes.txt"), "mine, edited\n");
    writePlan(repo, "dirty", [{ id: "K-1", test_steps: ["grep -q k1 K1.txt"] }]);
    const result = await runPlan(repo, fake);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /the work is on branch whilly\/dirty \(.*uncommitted changes\); take it with: git merge --ff-only whilly\/dirty\n/,
    );
    expect(fileAt(repo, "whilly/dirty", "K1.txt")).toBe("k1\n");
    expect(fileAt(repo, "main", "K1.txt")).toBeUndefined();
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("mine, edited\n");
  }, 120_000);
});
