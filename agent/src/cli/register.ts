import { hostname as machineName } from "node:os";
import { parseArgs } from "node:util";
import { ConfigurationError, EXIT, InvalidInput } from "@whilly/core";
import { registerWorker } from "../client/register.js";
import { joinNegativeValues } from "./args.js";
import { REGISTER_HELP } from "./help.js";
import type { WorkerIo } from "./io.js";
import { reportWorkerError } from "./report.js";
import { parseControlUrl, requiredSetting } from "./settings.js";
import { createHttpTransport, type HttpTransport } from "./transport.js";

/** What `whilly-worker register` runs with, validated once at start. */
export type RegisterSettings = {
  /** The control plane's base URL, without a trailing slash. */
  readonly controlUrl: string;
  /** The control plane's join secret (`WHILLY_WORKER_BOOTSTRAP_TOKEN`). */
  readonly bootstrapToken: string;
  /** The host name recorded for the worker, 1 to 256 characters. */
  readonly hostname: string;
  /** Print `{"worker_id","token"}` instead of the token alone. */
  readonly json: boolean;
};

const OPTIONS = {
  connect: { type: "string" },
  "bootstrap-token": { type: "string" },
  hostname: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Validates the command line and environment of `whilly-worker register`. Flags win over environment
 * variables; blank values count as absent.
 * @param defaultHostname recorded when `--hostname` is not given (this machine's name).
 * @throws {InvalidInput} (field `argv`) for an unknown flag, a flag without its value, or a stray argument.
 * @throws {ConfigurationError} naming the flag and its variable for a missing or invalid value.
 */
export function parseRegisterSettings(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  defaultHostname: string,
): RegisterSettings | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
    throw new InvalidInput("argv", message, { hint: "whilly-worker register --help lists the flags" });
  }
  if (values.help) return "help";
  const command = "whilly-worker register";
  const connect = given(values.connect) ?? given(env.WHILLY_CONTROL_URL);
  const controlUrl = parseControlUrl(
    requiredSetting(connect, { flag: "--connect", env: "WHILLY_CONTROL_URL" }, command),
  );
  const bootstrap = given(values["bootstrap-token"]) ?? given(env.WHILLY_WORKER_BOOTSTRAP_TOKEN);
  const source = { flag: "--bootstrap-token", env: "WHILLY_WORKER_BOOTSTRAP_TOKEN" };
  const bootstrapToken = requiredSetting(bootstrap, source, command);
  const hostname = given(values.hostname) ?? defaultHostname;
  if (hostname.length === 0 || hostname.length > 256) {
    throw new ConfigurationError(`--hostname must be 1 to 256 characters; got ${hostname.length}`, {
      hint: "pass a shorter --hostname",
    });
  }
  return { controlUrl, bootstrapToken, hostname, json: values.json ?? false };
}

/**
 * Runs `whilly-worker register <argv>`: registers a worker with the control plane and prints its
 * bearer. stdout holds the token alone (`TOKEN=$(whilly-worker register ...)`), or
 * `{"worker_id","token"}` with `--json`; a line naming the worker goes to stderr.
 * @returns 0 registered, 1 refused (wrong bootstrap token), unreachable or an unexpected reply,
 *   2 usage or configuration, 130 interrupted.
 */
export async function registerMain(
  argv: readonly string[],
  io: WorkerIo,
  makeTransport: () => HttpTransport = createHttpTransport,
): Promise<number> {
  let settings: RegisterSettings | "help";
  try {
    settings = parseRegisterSettings(argv, io.env, machineName());
  } catch (error) {
    return reportWorkerError(io, error);
  }
  if (settings === "help") {
    io.out.write(REGISTER_HELP);
    return EXIT.ok;
  }
  const transport = makeTransport();
  try {
    const { worker_id, token } = await registerWorker({
      baseUrl: settings.controlUrl,
      fetch: transport.fetch,
      bootstrapToken: settings.bootstrapToken,
      hostname: settings.hostname,
      signal: io.interrupt,
    });
    io.out.write(settings.json ? `${JSON.stringify({ worker_id, token })}\n` : `${token}\n`);
    if (!settings.json) {
      io.err.write(`whilly-worker: registered worker '${worker_id}' (host ${settings.hostname})\n`);
    }
    return EXIT.ok;
  } catch (error) {
    return io.interrupt?.aborted ? EXIT.interrupted : reportWorkerError(io, error);
  } finally {
    await transport.close().catch(() => {});
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: joinNegativeValues(argv, OPTIONS),
    options: OPTIONS,
    strict: true,
    allowPositionals: false,
  });
}

/** A non-blank value, trimmed; `undefined` otherwise. */
function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
