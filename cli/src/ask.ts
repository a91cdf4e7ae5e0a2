import { createInterface } from "node:readline";
import type { Ask, Out } from "./io.js";

/**
 * {@link Ask} over a line stream (stdin): each question is written to `output`, then one line is read.
 * The reader lives for one call, so stdin is let go afterwards and the process can exit; lines that
 * arrive before their question (a pipe) wait for it. `signal` (Ctrl-C) closes it: the call then
 * returns `undefined`.
 */
export function lineQuestions(input: NodeJS.ReadableStream, output: Out): Ask {
  return async (questions, signal) => {
    if (signal?.aborted) return undefined;
    const reader = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    const lines = reader[Symbol.asyncIterator]();
    const stop = () => reader.close();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const answers: string[] = [];
      for (const question of questions) {
        output.write(question);
        const next = await lines.next();
        if (next.done || signal?.aborted) return undefined;
        answers.push(next.value);
      }
      return answers;
    } finally {
      signal?.removeEventListener("abort", stop);
      reader.close();
    }
  };
}
