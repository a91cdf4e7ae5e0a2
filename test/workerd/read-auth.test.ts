import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { mintReadToken } from "../../worker-api/src/auth/read-token.js";
import { BOOTSTRAP_TOKEN, call, importChainPlan, register, withStore } from "./support.js";

describe.skipIf(!inject("workerdDatabaseUrl"))("the read API on the Worker", () => {
  it("takes the admin token and a live read token, and refuses others with 401; /health stays open", async () => {
    const planId = await importChainPlan();
    const { workerId, token: workerToken } = await register();
    const minted = await mintReadToken();
    await withStore((store) => store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash }));
    const tasks = `/api/v1/plans/${planId}/tasks`;

    expect((await call("GET", "/health")).status).toBe(200);
    for (const path of [tasks, "/openapi.json", "/api/v1/plans"]) {
      expect((await call("GET", path, undefined, env.WHILLY_ADMIN_TOKEN)).status, path).toBe(200);
      expect((await call("GET", path, undefined, minted.token)).status, path).toBe(200);
      for (const token of [undefined, BOOTSTRAP_TOKEN, workerToken, "not-a-token-at-all"]) {
        const reply = await call("GET", path, undefined, token);
        expect(reply.status, `${path} ${token}`).toBe(401);
        expect(reply.body.error_code).toBe("missing_or_invalid_read_token");
      }
    }
    expect((await call("GET", `/api/v1/plans/${planId}`, undefined, workerToken)).status).toBe(200);

    await withStore((store) => store.revokeReadToken(minted.id));
    expect((await call("GET", tasks, undefined, minted.token)).status).toBe(401);

    await withStore((store) => store.revokeWorker(workerId));
    const malformed = await call("POST", "/tasks/A/complete", { worker_id: 7 }, workerToken);
    expect(malformed.status).toBe(401);
  });
});
