import { env, exports } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { mintReadToken } from "../../worker-api/src/auth/read-token.js";
import { call, importChainPlan, register, withStore } from "./support.js";

/** `GET /metrics` on the Worker, as its text. */
async function scrape(token?: string) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await exports.default.fetch("http://whilly.test/metrics", { headers });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe.skipIf(!inject("workerdDatabaseUrl"))("GET /metrics on the Worker", () => {
  it("answers a read credential with the database's numbers; a worker bearer 403, no token 401", async () => {
    const planId = await importChainPlan();
    const { workerId, token: workerToken } = await register();
    const claimed = await call("POST", "/tasks/claim", { worker_id: workerId, plan_id: planId }, workerToken);
    expect(claimed.status).toBe(200);
    const minted = await mintReadToken();
    await withStore((store) => store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash }));

    for (const token of [minted.token, env.WHILLY_ADMIN_TOKEN]) {
      const reply = await scrape(token);
      expect(reply.status).toBe(200);
      expect(reply.type).toBe("text/plain; version=0.0.4; charset=utf-8");
      const lines = reply.text.split("\n");
      expect(lines).toContain(`whilly_claims_total{plan_id="${planId}"} 1`);
      expect(lines).toContain(`whilly_tasks{plan_id="${planId}",status="claimed"} 1`);
      expect(lines).toContain(`whilly_tasks{plan_id="${planId}",status="blocked"} 1`);
      expect(lines).toContain("# TYPE whilly_workers_online gauge");
      // Process memory is per isolate on Workers: the long poll's histogram is left out there.
      expect(reply.text).not.toContain("whilly_claim_long_poll_duration_seconds");
    }
    expect((await scrape(workerToken)).status).toBe(403);
    expect((await scrape()).status).toBe(401);
  });
});
