import { claimRequestSchema } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { createTaskClient, type Fetch } from "./task-client.js";

function claimBodies() {
  const bodies: unknown[] = [];
  const fetch: Fetch = async (_url, init) => {
    bodies.push(JSON.parse(String(init?.body)));
    return new Response(null, { status: 204 });
  };
  return { client: createTaskClient({ baseUrl: "http://cp", fetch, workerId: "w1" }), bodies };
}

describe("the claim body", () => {
  it("carries the worker's agents, tags and choice, valid for the protocol", async () => {
    const { client, bodies } = claimBodies();
    await client.claim("p", {
      capabilities: { agents: ["claude", "cmd"], tags: ["gpu"] },
      choice: { agent: "cmd", force_model: "m-1" },
    });
    expect(bodies[0]).toEqual({
      worker_id: "w1",
      plan_id: "p",
      start: true,
      capabilities: { agents: ["claude", "cmd"], tags: ["gpu"] },
      choice: { agent: "cmd", force_model: "m-1" },
    });
    expect(claimRequestSchema.safeParse(bodies[0]).success).toBe(true);
  });

  it("is an older worker's for Claude Code alone, no tags and no choice", async () => {
    const { client, bodies } = claimBodies();
    await client.claim("p", { capabilities: { agents: ["claude"], tags: [] }, choice: {} });
    await client.claim("p");
    expect(bodies).toEqual([
      { worker_id: "w1", plan_id: "p", start: true },
      { worker_id: "w1", plan_id: "p", start: true },
    ]);
  });
});
