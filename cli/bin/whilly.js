#!/usr/bin/env node
import { createInterface } from "node:readline/promises";
import { setFlagsFromString } from "node:v8";
import { lineQuestions } from "../dist/ask.js";
import { announceInterrupt, logUncaught } from "../dist/json-stderr.js";
import { main, reportUncaught } from "../dist/main.js";

// WebAssembly compiled by the baseline compiler only: the embedded store (PGlite, ~10 MB of wasm) then
// starts on about 1 s less CPU (2.7 s -> 1.7 s for `whilly plan list`; a new store's initdb 8.2 s ->
// 6.6 s), as optimising its code costs more than the few queries of a command gain. `whilly server`
// keeps V8's optimising compiler: it may serve the embedded store to many workers for hours. Set before
// any module compiles wasm.
if (process.argv.slice(2).find((word) => !word.startsWith("-")) !== "server") {
  setFlagsFromString("--liftoff-only");
}

const processIo = { err: process.stderr, env: process.env };

// A reader that stops early (`whilly plan export ID | head -1`) closes the pipe: the rest of the output
// has nowhere to go, but the command still finishes its work (a run its tasks, a server its shutdown).
// Any other failure to write (a full disk under `> file`) is said once on stderr and makes the exit
// code 1, and the command finishes too: what it stored is not undone by a lost line of output.
let outputFailed = false;
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") return;
  if (!outputFailed)
    logUncaught(error, "to standard output") ?? reportUncaught(processIo, error, "to standard output");
  outputFailed = true;
  process.exitCode ||= 1;
});
process.stderr.on("error", (error) => {
  // Nowhere left to say it.
  if (error.code !== "EPIPE") process.exitCode ||= 1;
});

// An error that escaped every command: one line for a refusal by the system, the stack for a bug; a
// log line instead while a command logs JSON on stderr (whilly server).
process.on("uncaughtException", (error) => {
  process.exit(logUncaught(error) ?? reportUncaught(processIo, error));
});

const interrupt = new AbortController();
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    signals += 1;
    if (signals > 1) {
      // Exiting at once must not leave the agent's processes running. The agent package is loaded here
      // only (a command that ran agents has it loaded already), as loading it slows every command's start.
      import("@whilly/agent").then(
        ({ endRunningAttempts }) => {
          endRunningAttempts();
          process.exit(130);
        },
        () => process.exit(130),
      );
      return;
    }
    announceInterrupt(process.stderr, signal);
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

const code = await main(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  confirm: process.stdin.isTTY ? confirm : undefined,
  interrupt: interrupt.signal,
  ask: lineQuestions(process.stdin, process.stderr),
  stdinIsTTY: process.stdin.isTTY === true,
  terminal:
    process.stdin.isTTY && process.stdout.isTTY
      ? { input: process.stdin, output: process.stdout }
      : undefined,
});
process.exitCode = code === 0 && outputFailed ? 1 : code;
