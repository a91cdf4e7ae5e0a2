import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAll, scratchDir } from "../../test/support/cli.js";
import { readPlanFile } from "./plan-file.js";

afterAll(removeAll);

const task = (id: string, testSteps: string[]) => ({
  id,
  status: "pending",
  priority: "low",
  description: id,
  test_steps: testSteps,
});

describe("readPlanFile", () => {
  it("warns once, with the path, of tasks whose test steps whilly's checks will not run", async () => {
    const dir = scratchDir();
    const tasks = [
      task("A", ["npm test"]),
      task("B", ["On machine B (manual) run the worker"]),
      task("C", ["whilly plan show p"]),
      task("D", ["manual: look at it"]),
    ];
    writeFileSync(join(dir, "tasks.json"), JSON.stringify({ project: "p", tasks }));
    const warnings: string[] = [];
    const plan = await readPlanFile("tasks.json", dir, (message) => warnings.push(message));
    expect(plan.tasks).toHaveLength(4);
    expect(warnings).toEqual([
      "tasks.json: 'test_steps' that read as instructions for a person in task 'B' and call whilly itself in task 'C' are not run by whilly's checks and count as manual; prefix manual steps with 'manual:' and write checks as shell commands",
    ]);
  });

  it("says nothing of a plan whose steps are commands or written manual:", async () => {
    const dir = scratchDir();
    const tasks = [task("A", ["npm test", "manual: Проверить что всё работает"])];
    writeFileSync(join(dir, "tasks.json"), JSON.stringify({ project: "p", tasks }));
    const warnings: string[] = [];
    await readPlanFile("tasks.json", dir, (message) => warnings.push(message));
    expect(warnings).toEqual([]);
  });
});
