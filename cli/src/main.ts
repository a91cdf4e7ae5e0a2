import { EXIT, redactingWriter, secretValuesOf } from "@whilly/core";
import yargs, { type Argv } from "yargs";
import { dashboardCommand } from "./commands/dashboard.js";
import { dbCommand } from "./commands/db.js";
import { eventsCommand } from "./commands/events.js";
import { forgeCommand } from "./commands/forge/index.js";
import { initCommand } from "./commands/init/index.js";
import { planCommand } from "./commands/plan/index.js";
import { runCommand } from "./commands/run.js";
import { serverCommand } from "./commands/server.js";
import { tokenCommand } from "./commands/token/index.js";
import { workerCommand } from "./commands/worker/index.js";
import { CliContext } from "./context.js";
import { UsageError } from "./exit-codes.js";
import { type Io, printError, terminalSafe } from "./io.js";
import { reportError } from "./report-error.js";
import { describeSystemError } from "./system-error.js";
import { VERSION } from "./version.js";

/**
 * Runs the `whilly` command line and returns the exit code; nothing here calls `process.exit`.
 * Data goes to `io.out`, diagnostics to `io.err`, both with control characters shown escaped (see
 * {@link terminalSafe}): much of what whilly prints comes from plan files, agents and servers.
 */
export async function main(argv: readonly string[], processIo: Io): Promise<number> {
  // stderr carries agents' messages and errors, so the environment's secrets are hidden there; stdout
  // carries data (an exported plan, a token just minted) and stays exact.
  const err = redactingWriter(terminalSafe(processIo.err), secretValuesOf(processIo.env));
  const io: Io = { ...processIo, out: terminalSafe(processIo.out), err };
  const ctx = new CliContext(
    io,
    argv.find((word) => !word.startsWith("-")),
  );
  let code: number;
  let helpText = "";
  // yargs reports a near-miss command as "Did you mean X?" before it reports the unknown word itself;
  // keep the suggestion as the hint of the error that names the word.
  let suggestion: string | undefined;
  const parser: Argv = yargs()
    .scriptName("whilly")
    .usage("whilly <command>\n\nOrchestrates coding agents over a plan of tasks kept in Postgres.")
    .strict()
    .recommendCommands()
    .demandCommand(1, "name a command")
    .version(`whilly ${VERSION}`)
    .alias("V", "version")
    .help()
    .alias("h", "help")
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .epilogue("Docs: docs/cli.md · Exit codes: 0 ok, 1 failed, 2 usage or configuration, 130 interrupted")
    .fail((message, error, usage) => {
      if (error) throw error;
      const recommended = /^Did you mean (.+)\?$/.exec(message ?? "")?.[1];
      if (recommended !== undefined) {
        suggestion = recommended;
        return;
      }
      throw yargsUsageError(message ?? "invalid command line", usage, suggestion);
    })
    .exitProcess(false)
    // Commands load their implementations when they run; the settings' parser, which every handler
    // reads, loads here before any of them (yargs runs middleware for --help and --version too, which
    // need none of it).
    .middleware((args) => (args.help || args.version ? undefined : ctx.load()));
  for (const register of [
    initCommand,
    forgeCommand,
    planCommand,
    runCommand,
    dbCommand,
    eventsCommand,
    dashboardCommand,
    serverCommand,
    workerCommand,
    tokenCommand,
  ])
    register(parser, ctx);
  try {
    // A bare `whilly` shows the help, as whilly 4.x did, rather than a usage error.
    const args = argv.length === 0 ? ["--help"] : [...argv];
    await parser.parseAsync(args, {}, (_err, _args, output) => {
      if (output) helpText = output;
    });
    if (helpText) io.out.write(`${helpText}\n`);
    code = ctx.exitCode;
  } catch (error) {
    code = reportError(io, error);
  }
  try {
    await ctx.close();
  } catch (error) {
    // Closing writes too (the embedded store flushes to disk), so it can meet a full disk as well.
    const closeCode = reportError(io, error);
    if (code === EXIT.ok) code = closeCode;
  }
  return code;
}

const GENERAL_HINT = "whilly --help lists the commands; whilly <command> --help their options";

/**
 * A mistake yargs found on the command line, as a {@link UsageError} with a hint that fits it. Its
 * "not enough arguments" names only counts, so the missing positionals are read from the command's
 * usage line (`$0 worker revoke <worker_id>`), which yargs passes to its fail handler.
 */
function yargsUsageError(message: string, usage: unknown, suggestion: string | undefined): UsageError {
  if (suggestion !== undefined)
    return new UsageError(message, {
      hint: `did you mean '${suggestion}'? whilly --help lists the commands`,
    });
  const line = (usage as { getUsage?: () => [string, string][] } | undefined)?.getUsage?.()[0]?.[0];
  const command = line?.replace(/^\$0/, "whilly");
  const words = command?.replace(/ [<[].*$/, "");
  const counts = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(message);
  if (counts && command) {
    const required = command.match(/<[^>]+>/g) ?? [];
    const missing = required.slice(Number(counts[1]), Number(counts[2]));
    if (missing.length > 0) {
      return new UsageError(`missing ${missing.join(" ")}: ${command}`, {
        hint: `${words} --help describes its arguments`,
      });
    }
  }
  // A command group without its verb (`whilly plan`): its demandCommand message lists the verbs.
  if (message.startsWith("name a ") && words !== undefined && words !== "whilly") {
    return new UsageError(message, { hint: `${words} --help describes each` });
  }
  return new UsageError(message, { hint: GENERAL_HINT });
}

/**
 * Reports an error that escaped every command (an exception in a callback, a failed write to stdout),
 * as {@link main} reports its own: one line and a hint for a refusal by the operating system, the
 * stack for a bug. For `bin/whilly.js`, which owns the process.
 * @param subject names what failed when the error does not, e.g. `standard output`.
 * @returns the exit code to end with.
 */
export function reportUncaught(processIo: Pick<Io, "err" | "env">, error: unknown, subject?: string): number {
  const io = { env: processIo.env, err: terminalSafe(processIo.err) };
  const system = subject === undefined ? undefined : describeSystemError(error, subject);
  if (system === undefined) return reportError(io, error);
  printError(io, system.message, system.hint);
  return system.exitCode;
}
