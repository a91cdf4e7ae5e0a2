import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsOf, makeRepo, makeStoreTemplate, removeAll, runCli } from "../../../../test/support/cli.js";

// A plan file that records where it came from: `plan import`, `show` and `export` on the embedded store.
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

const ORIGIN = {
  kind: "github_issue",
  reference: "acme/widgets/42",
  url: "https://github.com/acme/widgets/issues/42",
  title: "Add a widget",
};

function writePlan(repo: string, name: string, planId: string): string {
  const file = join(repo, name);
  const plan = {
    project: "Widgets",
    plan_id: planId,
    github_issue_ref: "Acme/Widgets/42",
    origin: ORIGIN,
    tasks: [
      {
        id: "W-1",
        status: "pending",
        priority: "high",
        description: "Add the widget.",
        dependencies: [],
        acceptance_criteria: ["the widget exists"],
        test_steps: ["true"],
      },
    ],
  };
  writeFileSync(file, JSON.stringify(plan, null, 2));
  return file;
}

describe("a plan's github_issue_ref and origin", () => {
  it("are stored, shown and exported; the issue's second plan id is refused", async () => {
    const repo = makeRepo(template);
    const file = writePlan(repo, "issue.json", "issue-acme-widgets-42");
    expect(await runCli(["plan", "import", file], { cwd: repo })).toMatchObject({ code: 0 });
    const events = await eventsOf(repo, "issue-acme-widgets-42");
    expect(events.map((e) => e.eventType)).toEqual(["plan.created", "task.created"]);

    const show = await runCli(["plan", "show", "issue-acme-widgets-42", "--json"], { cwd: repo });
    expect(JSON.parse(show.out).plan).toMatchObject({ github_issue_ref: "acme/widgets/42", origin: ORIGIN });
    const text = await runCli(["plan", "show", "issue-acme-widgets-42", "--no-color"], { cwd: repo });
    expect(text.out.split("\n")[1]).toBe(
      "From: github issue acme/widgets/42 — Add a widget https://github.com/acme/widgets/issues/42",
    );

    const exported = await runCli(["plan", "export", "issue-acme-widgets-42"], { cwd: repo });
    expect(JSON.parse(exported.out)).toMatchObject({ github_issue_ref: "acme/widgets/42", origin: ORIGIN });

    const again = await runCli(["plan", "import", file, "--json"], { cwd: repo });
    expect(JSON.parse(again.out)).toMatchObject({ plan_created: false, inserted: [], unchanged: ["W-1"] });

    const other = writePlan(repo, "other.json", "widgets-again");
    const refused = await runCli(["plan", "import", other], { cwd: repo });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      "github_issue_ref 'acme/widgets/42' already belongs to plan 'issue-acme-widgets-42', so plan 'widgets-again' cannot have it",
    );
    expect((await runCli(["plan", "list", "--json"], { cwd: repo })).out).not.toContain("widgets-again");
  });
});
