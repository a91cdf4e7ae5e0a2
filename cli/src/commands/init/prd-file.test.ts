import { describe, expect, it } from "vitest";
import { answerFileOf, prdTitle, slugOfPrdFile } from "./prd-file.js";
import { prdInput, WIZARD_QUESTIONS } from "./wizard.js";

describe("PRD files of whilly init", () => {
  it("takes a slug from a PRD file's name and a title from its first heading", () => {
    expect(slugOfPrdFile("docs/PRD-todo-app.md")).toBe("todo-app");
    expect(slugOfPrdFile("specs/Shopping List.md")).toBe("shopping-list");
    expect(prdTitle("intro\n# PRD: Todo \n## Problem")).toBe("PRD: Todo");
    expect(prdTitle("no heading")).toBeUndefined();
    expect(answerFileOf({ path: "/r/docs/PRD-x.md", shown: "docs/PRD-x.md" })).toEqual({
      path: "/r/docs/PRD-x.plan-answer.txt",
      shown: "docs/PRD-x.plan-answer.txt",
    });
  });

  it("puts the idea and each wizard answer into a piece of its own, an empty answer said as such", () => {
    const pieces = prdInput("a todo app", ["lost lists", "", "it works", "web", "TypeScript"]);
    expect(pieces.map((p) => [p.kind, p.text])).toEqual([
      ["idea", "a todo app"],
      ...WIZARD_QUESTIONS.map(({ kind }, i) => [
        kind,
        ["lost lists", "(no answer)", "it works", "web", "TypeScript"][i],
      ]),
    ]);
    expect(prdInput("x", undefined)).toEqual([{ kind: "idea", text: "x" }]);
  });
});
