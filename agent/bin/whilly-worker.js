#!/usr/bin/env node
import { workerMain } from "../dist/cli/main.js";

// The first SIGINT or SIGTERM stops the worker cleanly: the agent's process group is killed, its task
// released, and the worker exits 130. A second one exits at once.
const interrupt = new AbortController();
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    process.stderr.write(`whilly-worker: ${signal} received; stopping the agent and releasing its task\n`);
    interrupt.abort();
  });
}

process.exitCode = await workerMain(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  interrupt: interrupt.signal,
});
