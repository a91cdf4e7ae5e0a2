import { describe, expect, it } from "vitest";
import { workerIdFromToken } from "./worker-id.js";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (claims: unknown) => `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}.c2lnbmF0dXJl`;

describe("workerIdFromToken", () => {
  it("reads the sub claim of a JWT, including ids that need base64url's - and _", () => {
    expect(workerIdFromToken(jwt({ sub: "w-Ab3_x-9", iss: "whilly" }))).toBe("w-Ab3_x-9");
    expect(workerIdFromToken(jwt({ sub: "ключ?>>" }))).toBe("ключ?>>");
  });

  it("finds no id in a shared token, a JWT without a string sub, or garbage", () => {
    expect(workerIdFromToken("s3cret-shared-token")).toBeUndefined();
    expect(workerIdFromToken(jwt({ iss: "whilly" }))).toBeUndefined();
    expect(workerIdFromToken(jwt({ sub: 42 }))).toBeUndefined();
    expect(workerIdFromToken(jwt({ sub: " " }))).toBeUndefined();
    expect(workerIdFromToken(jwt("just a string"))).toBeUndefined();
    expect(workerIdFromToken("a.bm90IGpzb24.c")).toBeUndefined();
    expect(workerIdFromToken("a.b+c/.d")).toBeUndefined();
  });
});
