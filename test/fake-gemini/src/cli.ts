import { renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startFakeGemini } from "./server.js";

const USAGE = "usage: fake-gemini --script FILE [--port N] [--port-file FILE] [--log FILE.jsonl]";

/**
 * The `fake-gemini` command: serves a script until SIGINT or SIGTERM. Prints
 * `listening on http://127.0.0.1:PORT` on stdout and, with `--port-file`, writes the port there
 * (atomically, so a waiting script never reads half a number).
 * @returns the exit code: 0 after a clean stop, 2 for bad arguments or a bad script.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let values: { script?: string; port?: string; "port-file"?: string; log?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        script: { type: "string" },
        port: { type: "string" },
        "port-file": { type: "string" },
        log: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (values.script === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`error: --script is required and --port must be 0-65535\n${USAGE}\n`);
    return 2;
  }
  let fake: Awaited<ReturnType<typeof startFakeGemini>>;
  try {
    fake = await startFakeGemini({
      scriptFile: values.script,
      port,
      ...(values.log === undefined ? {} : { log: values.log }),
    });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 2;
  }
  const portFile = values["port-file"];
  if (portFile !== undefined) {
    writeFileSync(`${portFile}.tmp`, String(fake.port));
    renameSync(`${portFile}.tmp`, portFile);
  }
  process.stdout.write(`listening on ${fake.url}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await fake.close();
  return 0;
}
