#!/usr/bin/env node
import { createInterface } from "node:readline/promises";
import { main } from "../dist/main.js";

// A reader that stops early (`whilly plan export ID | head -1`) closes the pipe: the rest of the output
// has nowhere to go, but the command still finishes its work (a run its tasks, a server its shutdown).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
  });
}

const interrupt = new AbortController();
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    process.stderr.write(`\nwhilly: ${signal} received; stopping (again to force)\n`);
    interrupt.abort();
  });
}

async function confirm(question) {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

process.exitCode = await main(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  confirm: process.stdin.isTTY ? confirm : undefined,
  interrupt: interrupt.signal,
});
