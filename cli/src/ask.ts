import { createInterface } from "node:readline";
import type { Ask, Out } from "./io.js";

/**
 * {@link Ask} over a line stream (stdin): each question is written to `output`, then one line is read.
 * The reader lives for one call, so stdin is let go afterwards and the process can exit; lines that
 * arrive before their question (a pipe) wait for it. Input that ends early skips the questions left
 * (empty answers, as empty lines give). `signal` (Ctrl-C) closes it: the call then returns `undefined`.
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
        if (signal?.aborted) return undefined;
        if (next.done) {
          // The input ended (a pipe of fewer lines): the questions left are skipped, as empty lines are.
          output.write("\n");
          return [...answers, ...questions.slice(answers.length).map(() => "")];
        }
        answers.push(next.value);
      }
      return answers;
    } finally {
      signal?.removeEventListener("abort", stop);
      reader.close();
    }
  };
}
