import { env, exports } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { mintReadToken } from "../../worker-api/src/auth/read-token.js";
import { sseReader } from "../../worker-api/src/stream/testing/sse-reader.js";
import { importChainPlan, withStore } from "./support.js";

// Browser sessions on the Worker: a cookie the Worker issued opens the plan's event stream there, as a
// browser's EventSource (no Authorization header) opens it.

/** Opens a session over https with `token`. @returns the reply and the cookie's `name=value`. */
async function openSession(token: string) {
  const response = await exports.default.fetch("https://whilly.test/api/v1/session", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { status: response.status, body: (await response.json()) as { role: string }, setCookie };
}

describe.skipIf(!inject("workerdDatabaseUrl"))("browser sessions on the Worker", () => {
  it("issues a Secure session cookie that opens the plan's event stream, and dies with its read token", async () => {
    const planId = await importChainPlan();
    const admin = await openSession(env.WHILLY_ADMIN_TOKEN);
    expect(admin.status).toBe(200);
    expect(admin.body.role).toBe("admin");
    expect(admin.setCookie.split(/;\s*/)).toEqual(
      expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/", "Secure", "Max-Age=43200"]),
    );
    const cookie = admin.setCookie.split(";")[0] ?? "";
    const response = await exports.default.fetch(
      `https://whilly.test/api/v1/plans/${encodeURIComponent(planId)}/events/stream?after=0`,
      { headers: { cookie } },
    );
    expect(response.status).toBe(200);
    if (!response.body) throw new Error("no body");
    const frames = sseReader(response.body);
    const first = await frames.nextEvent();
    await frames.cancel();
    expect(JSON.parse(first?.data ?? "{}")).toMatchObject({ plan_id: planId, event_type: "task.created" });

    const minted = await mintReadToken();
    await withStore((store) => store.createReadToken({ id: minted.id, tokenHash: minted.tokenHash }));
    const read = await openSession(minted.token);
    expect(read.body.role).toBe("read");
    const readCookie = read.setCookie.split(";")[0] ?? "";
    const tasks = `https://whilly.test/api/v1/plans/${encodeURIComponent(planId)}/tasks`;
    expect((await exports.default.fetch(tasks, { headers: { cookie: readCookie } })).status).toBe(200);
    await withStore((store) => store.revokeReadToken(minted.id));
    const revoked = await exports.default.fetch(tasks, { headers: { cookie: readCookie } });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error_code: string }).error_code).toBe("invalid_session");
  });
});
