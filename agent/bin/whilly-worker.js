#!/usr/bin/env node
import { terminalSafe } from "../dist/cli/io.js";
import { workerMain } from "../dist/cli/main.js";
import { reportUncaughtWorkerError } from "../dist/cli/report.js";
import { endRunningAttempts } from "../dist/runner/process-group.js";

const processIo = { err: terminalSafe(process.stderr) };

// A reader that stops early closes the pipe; the worker still finishes its work. Any other failure to
// write standard output (a full disk under `> file`) is said once on stderr and makes the exit code 1:
// `register` prints the only copy of a token there.
let outputFailed = false;
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") return;
  if (!outputFailed) reportUncaughtWorkerError(processIo, error, "to standard output");
  outputFailed = true;
  process.exitCode ||= 1;
});
process.stderr.on("error", (error) => {
  // Nowhere left to say it.
  if (error.code !== "EPIPE") process.exitCode ||= 1;
});

// An error that escaped the worker: one line for a refusal by the system, the stack for a bug.
process.on("uncaughtException", (error) => {
  process.exit(reportUncaughtWorkerError(processIo, error));
});

// The first SIGINT or SIGTERM stops the worker cleanly: the agent's process group is killed, its task
// released, and the worker exits 130. A second one exits at once, ending the agent's processes first. The worker says what it stops (it
// knows whether an agent runs), so the signal's name goes along as the reason.
const interrupt = new AbortController();
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    signals += 1;
    if (signals > 1) {
      endRunningAttempts();
      process.exit(130);
    }
    interrupt.abort(signal);
  });
}

const code = await workerMain(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  interrupt: interrupt.signal,
});
process.exitCode = code === 0 && outputFailed ? 1 : code;
