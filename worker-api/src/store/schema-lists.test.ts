import { PRIORITIES, TASK_STATUSES } from "@whilly/core";
import { PRIORITY_SQL_LIST, STATUS_SQL_LIST } from "@whilly/schema";
import { describe, expect, it } from "vitest";

describe("schema CHECK lists", () => {
  it("allow exactly core's statuses and priorities, in core's order", () => {
    expect(STATUS_SQL_LIST).toBe(TASK_STATUSES.map((s) => `'${s}'`).join(", "));
    expect(PRIORITY_SQL_LIST).toBe(PRIORITIES.map((p) => `'${p}'`).join(", "));
  });
});
