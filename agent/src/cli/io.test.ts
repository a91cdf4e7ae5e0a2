import { describe, expect, it } from "vitest";
import { allSecretsText, leakedSecrets, SAMPLE_SECRETS } from "../../../test/fixtures/secret-samples.js";
import { terminalSafeIo } from "./io.js";

describe("whilly-worker's streams", () => {
  it("hide the environment's secrets and every token shape on stderr; stdout stays exact", () => {
    let out = "";
    let err = "";
    const io = terminalSafeIo({
      out: { write: (text: string) => (out += text) },
      err: { write: (text: string) => (err += text) },
      env: { DEPLOY_TOKEN: "plain-deploy-value-99", PATH: "/bin" },
      cwd: "/",
    });
    io.err.write(`error: the agent said ${allSecretsText(" ")} and plain-deploy-value-99\n`);
    expect(err).toContain("[redacted]");
    expect(leakedSecrets(err)).toEqual([]);
    expect(err).not.toContain("plain-deploy-value-99");
    // `whilly-worker register` prints the worker's token on stdout: it must arrive whole.
    io.out.write(`${SAMPLE_SECRETS.jwt}\n`);
    expect(out).toBe(`${SAMPLE_SECRETS.jwt}\n`);
  });
});
