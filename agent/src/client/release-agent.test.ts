import { releaseRequestSchema, type TaskPayload } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { createTaskClient, type Fetch } from "./task-client.js";

const task: TaskPayload = {
  plan_id: "p",
  id: "T-1",
  status: "IN_PROGRESS",
  priority: "high",
  description: "d",
  dependencies: [],
  key_files: [],
  acceptance_criteria: [],
  test_steps: [],
  prd_requirement: "",
  version: 3,
  attempts: 1,
  claimed_by: "w1",
  lease_expires_at: null,
  agent: "codex",
  model: null,
};

describe("a release on a usage limit", () => {
  it("names the attempt's agent, so the control plane can move the task to a fallback agent", async () => {
    const bodies: unknown[] = [];
    const fetch: Fetch = async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(JSON.stringify({ task: { ...task, status: "PENDING", version: 4 } }), {
        status: 200,
      });
    };
    const client = createTaskClient({ baseUrl: "http://cp", fetch, workerId: "w1" });
    await client.release(task, "rate_limited", { until: new Date("2026-12-01T20:00:00Z"), message: "limit" });
    await client.release(task, "shutdown");
    expect(releaseRequestSchema.parse(bodies[0])).toMatchObject({ reason: "rate_limited", agent: "codex" });
    expect(bodies[1]).not.toHaveProperty("agent");
  });
});
