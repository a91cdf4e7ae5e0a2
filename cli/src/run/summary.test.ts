import { describe, expect, it } from "vitest";
import type { Io } from "../io.js";
import { type RunSummary, renderSummary, summaryJson } from "./summary.js";

const io: Io = { out: { write: () => true }, err: { write: () => true }, env: {}, cwd: "/" };

function summary(integration: RunSummary["integration"]): RunSummary {
  return {
    planId: "p",
    integration,
    ok: true,
    tasks: [],
    counts: { PENDING: 0, CLAIMED: 0, IN_PROGRESS: 0, DONE: 0, FAILED: 0, SKIPPED: 0 },
    spentMicroUsd: 0,
    budgetMicroUsd: undefined,
    budgetExhausted: false,
  };
}

describe("the run summary's integration lines", () => {
  it("warns of changes in the user's own tree, naming them, and carries them all in JSON", () => {
    const changed = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
    const s = summary({ branch: "whilly/p", fastForwarded: true, userTreeChanged: changed });
    const text = renderSummary(s, io);
    expect(text).toContain("your branch now holds the work of whilly/p (fast-forwarded)");
    expect(text).toContain("warning: 12 path(s) of your own working tree changed during the run");
    expect(text).toContain("f0.txt, f1.txt");
    expect(text).toContain("and 2 more");
    expect(summaryJson(s).integration?.user_tree_changed).toEqual(changed);
  });

  it("says nothing of the user's tree when it is unchanged", () => {
    const s = summary({ branch: "whilly/p", fastForwarded: false, command: "git merge --ff-only whilly/p" });
    const text = renderSummary(s, io);
    expect(text).toContain("take it with: git merge --ff-only whilly/p");
    expect(text).not.toContain("warning");
  });
});
