import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { lineQuestions } from "./ask.js";

function streams() {
  const input = new PassThrough();
  let shown = "";
  return {
    input,
    ask: lineQuestions(input, { write: (text: string) => (shown += text) }),
    shown: () => shown,
  };
}

describe("lineQuestions (the wizard's questions on stdin)", () => {
  it("asks one question per line, even when the lines came first (a pipe)", async () => {
    const { input, ask, shown } = streams();
    input.write("first\r\nsecond\nthird\n");
    expect(await ask(["1? ", "2? "])).toEqual(["first", "second"]);
    expect(shown()).toBe("1? 2? ");
  });

  it("waits for each answer after its question; input that ends early skips the questions left", async () => {
    const { input, ask, shown } = streams();
    const answers = ask(["1? ", "2? ", "3? "]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(shown()).toBe("1? ");
    input.write("one\n");
    input.end();
    expect(await answers).toEqual(["one", "", ""]);
    expect(shown()).toBe("1? 2? \n");
  });

  it("gives undefined when interrupted while waiting", async () => {
    const { ask } = streams();
    const stop = new AbortController();
    const answers = ask(["1? "], stop.signal);
    stop.abort();
    expect(await answers).toBeUndefined();
    expect(await ask(["again? "], stop.signal)).toBeUndefined();
  });
});
