import { redeemResponseSchema } from "@whilly/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSignInCodes } from "../../auth/sign-in-codes.js";
import { createTokenAuth } from "../../auth/token-auth.js";
import type { Store } from "../../store/store.js";
import { openPgliteFixture, type StoreFixture } from "../../store/testing/fixtures.js";
import type { AppDeps } from "../deps.js";
import { routeHarness } from "../testing/route-harness.js";
import { openSession, withCookie } from "../testing/session-cookie.js";

// `POST /api/v1/session/redeem`: `whilly run --ui`'s one-time link trades its code for the admin
// token and an admin session.

const BOOTSTRAP = "bootstrap-secret-for-redeem-tests";
const ADMIN = "admin-secret-for-redeem-tests-01234";
const REDEEM = { path: "/api/v1/session/redeem" };

let fixture: StoreFixture;
let store: Store;
const harness = routeHarness(() => store);

beforeAll(async () => {
  fixture = await openPgliteFixture();
});
afterAll(async () => fixture.close());
beforeEach(async () => {
  store = await fixture.fresh();
});

const app = (signIn?: AppDeps["signIn"]) =>
  harness.app({
    auth: createTokenAuth({ bootstrapToken: BOOTSTRAP, adminToken: ADMIN }),
    ...(signIn ? { signIn } : {}),
  });

describe("POST /api/v1/session/redeem", () => {
  it("trades a valid code, once, for the admin token and an admin session cookie", async () => {
    const codes = createSignInCodes({ ttlMs: 60_000 });
    const a = app({ codes, adminToken: ADMIN });
    const code = codes.issue();
    const reply = await openSession(a, undefined, { ...REDEEM, body: { code } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ role: "admin", token: ADMIN, expires_at: expect.any(String) });
    expect(redeemResponseSchema.safeParse(reply.body).error).toBeUndefined();
    expect(reply.setCookie?.split(/;\s*/)).toEqual(
      expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"]),
    );
    expect((await withCookie(a, "/api/v1/workers", reply.cookie)).status).toBe(200);
    const again = await openSession(a, undefined, { ...REDEEM, body: { code } });
    expect(again.status).toBe(401);
    expect(again.body.error_code).toBe("sign_in_code_invalid");
    expect(again.setCookie).toBeNull();
  });

  it("refuses an expired or unknown code with 401 sign_in_code_invalid", async () => {
    let now = 0;
    const codes = createSignInCodes({ ttlMs: 1000, now: () => now });
    const a = app({ codes, adminToken: ADMIN });
    const code = codes.issue();
    now = 1000;
    for (const body of [{ code }, { code: "made-up" }]) {
      const reply = await openSession(a, undefined, { ...REDEEM, body });
      expect(reply.status).toBe(401);
      expect(reply.body.error_code).toBe("sign_in_code_invalid");
      expect(JSON.stringify(reply.body)).not.toContain(ADMIN);
    }
  });

  it("says which field is wrong for a body without a code", async () => {
    const a = app({ codes: createSignInCodes({ ttlMs: 1000 }), adminToken: ADMIN });
    const reply = await openSession(a, undefined, { ...REDEEM, body: { token: "x" } });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toContain("code");
  });

  it("answers 404 on a control plane that issues no codes", async () => {
    const reply = await openSession(app(), undefined, { ...REDEEM, body: { code: "anything" } });
    expect(reply.status).toBe(404);
    expect(reply.body.error_code).toBe("not_found");
  });
});
