import { describe, expect, it } from "vitest";
import { SAMPLE_SECRETS, secretPart } from "../../../test/fixtures/secret-samples.js";
import { OUTPUT_TAIL_BYTES, outputTail } from "../agent-result/text.js";
import { dropCutFragment, redactJson, redactSecrets, secretValuesOf } from "./redact.js";

describe("redactSecrets", () => {
  for (const [name, sample] of Object.entries(SAMPLE_SECRETS)) {
    it(`hides a ${name} secret inside ordinary text`, () => {
      const out = redactSecrets(`before ${sample} after`);
      expect(out).not.toContain(secretPart(name, sample));
      expect(out).toContain("[redacted]");
      expect(out.startsWith("before ")).toBe(true);
      expect(out.endsWith(" after")).toBe(true);
      expect(redactSecrets(out)).toBe(out);
    });
  }

  it("keeps what says which kind of secret it was, and the user of a URL", () => {
    expect(redactSecrets(`t=${SAMPLE_SECRETS.github ?? ""}`)).toBe("t=ghp_[redacted]");
    expect(redactSecrets(SAMPLE_SECRETS.urlPassword ?? "")).toBe(
      "postgres://whilly:[redacted]@db.internal:5432/whilly",
    );
  });

  it("hides a URL password that holds an unescaped @ whole", () => {
    expect(redactSecrets("https://me:p@ss-w0rd@host/x")).toBe("https://me:[redacted]@host/x");
  });

  it("hides name=value assignments of secrets but not counts", () => {
    expect(redactSecrets("DB_PASSWORD=correct-horse-battery")).toBe("DB_PASSWORD=[redacted]");
    expect(redactSecrets('{"api_key": "abcdefgh12345"}')).toBe('{"api_key": "[redacted]"}');
    expect(redactSecrets('"output_tokens": 123456789')).toBe('"output_tokens": 123456789');
  });

  it("hides known values of 8 or more characters, longest first, and leaves short ones", () => {
    const out = redactSecrets("value hunter22-long and 1 and hunter22", ["hunter22-long", "hunter22", "1"]);
    expect(out).toBe("value [redacted] and 1 and [redacted]");
  });

  it("hides a private key whose BEGIN line was cut off, up to its END line", () => {
    const key = SAMPLE_SECRETS.privateKey ?? "";
    const cut = key.slice(key.indexOf("\n") + 5);
    expect(redactSecrets(`${cut}\nnext line`)).toBe("[redacted]\nnext line");
  });

  it("leaves ordinary agent output alone", () => {
    const text = "Edited src/app.ts; ran npm test: 12 passed. See https://example.com/docs. sk-learn works.";
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("fragments of known secrets", () => {
  const key = "sk-ant-api03-Qx7vR2mK9pL4tZ8wN3bH6jD1fG5sY0cVeU_aT-oI";
  const random = "Zq8wX3vB7nM2kL5pR9tY4uE6iO1aS0dFgH";
  const leftOf = (text: string, secret: string) =>
    Array.from({ length: secret.length - 15 }, (_, i) => secret.slice(i, i + 16)).filter((f) =>
      text.includes(f),
    );

  it("hides a key printed without its well-known prefix", () => {
    const out = redactSecrets(`tail=${key.slice("sk-ant-".length)}\n`, [key]);
    expect(out).toBe("tail=[redacted]\n");
    expect(redactSecrets(`t=${key.slice("sk-ant-api03-".length)}.`, [key])).toBe("t=[redacted].");
  });

  it("hides a prefix, a middle and a suffix of 16 characters or more", () => {
    const text = `a ${random.slice(0, 17)} b ${random.slice(5, 22)} c ${random.slice(-16)} d`;
    const out = redactSecrets(text, [random]);
    expect(out).toBe("a [redacted] b [redacted] c [redacted] d");
    expect(leftOf(out, random)).toEqual([]);
    expect(redactSecrets(out, [random])).toBe(out);
  });

  it("hides a fragment glued to other text, and only the fragment", () => {
    expect(redactSecrets(`x=${random.slice(3, 25)}ZZZ!`, [random])).toBe("x=[redacted]ZZZ!");
  });

  it("hides fragments in megabytes of output, wherever they fall", () => {
    const noise = "ordinary log line 0123456789 abcdefghijklmnop\n".repeat(40_000);
    const out = redactSecrets(`${noise}${random.slice(1, 18)}\n${noise}${key.slice(9)}`, [random, key]);
    expect(leftOf(out, random)).toEqual([]);
    expect(leftOf(out, key)).toEqual([]);
    expect(out.length).toBe(noise.length * 2 + "[redacted]\n[redacted]".length);
  });

  it("keeps secrets under 20 characters redacted exactly, their fragments kept", () => {
    const short = "Ab3dEf6hIj9lMn2pQr"; // 18 characters
    expect(redactSecrets(`${short} ${short.slice(0, 16)}`, [short])).toBe(`[redacted] ${short.slice(0, 16)}`);
  });

  it("leaves ordinary text alone: short runs, one-class runs, and values that are paths or URLs", () => {
    const path = "/home/runner/work/whilly2/keys/deploy_key_2024";
    const words = "correct-horse-battery-staple-forever";
    const text = `ran ${random.slice(0, 15)} in /home/runner/work/whilly2/src; correct-horse-battery ok`;
    expect(redactSecrets(text, [random, path, words])).toBe(text);
    expect(redactSecrets(`cat ${path}`, [path])).toBe("cat [redacted]");
  });
});

describe("redactJson", () => {
  it("redacts every string of a detail, keys untouched", () => {
    const detail = { output_tail: `x ${SAMPLE_SECRETS.gitlab}`, nested: [SAMPLE_SECRETS.aws], n: 1 };
    expect(redactJson(detail)).toEqual({
      output_tail: "x glpat-[redacted]",
      nested: ["AKIA[redacted]"],
      n: 1,
    });
  });
});

describe("secretValuesOf", () => {
  it("takes variables named as secrets and URL passwords, skipping short values", () => {
    const values = secretValuesOf({
      GH_TOKEN: "tok-abcdefgh",
      MY_API_KEY: "key-12345678",
      PGPASSWORD: "pw-longer-1",
      SHORT_SECRET: "1",
      HOME: "/home/me",
      WHILLY_DATABASE_URL: "postgres://u:p%40ss-w0rd@h/db",
    });
    expect(values).toEqual(
      expect.arrayContaining(["tok-abcdefgh", "key-12345678", "pw-longer-1", "p%40ss-w0rd", "p@ss-w0rd"]),
    );
    expect(values).not.toContain("1");
    expect(values).not.toContain("/home/me");
  });
});

describe("a secret split by the tail cut", () => {
  it("leaves no piece of the secret in the kept tail", () => {
    const secret = SAMPLE_SECRETS.github ?? "";
    // The cut lands 10 characters into the token.
    const filler = "x".repeat(OUTPUT_TAIL_BYTES - (secret.length - 10));
    const tail = outputTail(redactSecrets(`start ${secret}${filler}`.slice(0)));
    expect(tail).not.toContain(secret.slice(10, 22));
    // An unredacted text cut inside a token (an old worker's tail) loses the fragment too.
    const raw = outputTail(`start ${secret} ${"y".repeat(OUTPUT_TAIL_BYTES - 20)}`);
    expect(raw).not.toMatch(/A1b2|abcdef/);
    expect(dropCutFragment("abc def")).toBe("… def");
    expect(dropCutFragment("жж def")).toBe("жж def");
  });
});
