import { hostname as machineName } from "node:os";
import { checkControlUrl } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/**
 * `whilly worker register`: registers a worker with a control plane and prints its bearer. stdout holds
 * the token alone (`TOKEN=$(whilly worker register ...)`), or `{worker_id, token}` with `--json`; the
 * worker id is also the token's `sub` claim, so `whilly-worker --token "$TOKEN"` needs no `--worker-id`.
 * Exit 2 when the URL or the bootstrap token is missing, 1 when the control plane refuses or fails.
 */
export function registerCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "register",
    "Register a worker with a control plane and print its token",
    (a) =>
      a
        .option("connect", { type: "string", describe: "control-plane URL (env WHILLY_CONTROL_URL)" })
        .option("bootstrap-token", {
          type: "string",
          describe: "the control plane's join secret (env WHILLY_WORKER_BOOTSTRAP_TOKEN; prefer the env)",
        })
        .option("hostname", { type: "string", describe: "host name to record (default: this machine's)" })
        .option("json", { type: "boolean", default: false, describe: "print {worker_id, token} as JSON" })
        .example(
          'TOKEN=$(whilly worker register --connect "$URL")',
          'with WHILLY_WORKER_BOOTSTRAP_TOKEN set; then: whilly-worker --connect "$URL" --token "$TOKEN" --plan ID',
        ),
    async (args) => {
      const env = ctx.io.env;
      const connect = given(args.connect) ?? given(env.WHILLY_CONTROL_URL);
      if (connect === undefined) {
        throw new UsageError("no control-plane URL: pass --connect URL or set WHILLY_CONTROL_URL", {
          hint: "e.g. whilly worker register --connect http://127.0.0.1:8000",
        });
      }
      const controlUrl = parseControlUrl(connect);
      const bootstrapToken = given(args.bootstrapToken) ?? given(env.WHILLY_WORKER_BOOTSTRAP_TOKEN);
      if (bootstrapToken === undefined) {
        throw new UsageError(
          "no bootstrap token: pass --bootstrap-token TOKEN or set WHILLY_WORKER_BOOTSTRAP_TOKEN",
          { hint: "it is the control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN" },
        );
      }
      const hostname = given(args.hostname) ?? machineName();
      const { registerWorker } = await import("@whilly/agent");
      const { worker_id, token } = await registerWorker({
        baseUrl: controlUrl,
        fetch: (url, init) => fetch(url, init),
        bootstrapToken,
        hostname,
        signal: ctx.io.interrupt,
      });
      ctx.io.out.write(args.json ? `${JSON.stringify({ worker_id, token })}\n` : `${token}\n`);
      if (!args.json) ctx.io.err.write(`registered worker '${worker_id}' (host ${hostname}).\n`);
    },
  );
}

/** A non-blank value, trimmed; `undefined` otherwise. */
function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * @returns the URL without trailing slashes.
 * @throws {UsageError} unless `text` is an http(s) URL without credentials, query or fragment, as
 * whilly-worker checks it ({@link checkControlUrl}); the message never shows a password.
 */
function parseControlUrl(text: string): string {
  const checked = checkControlUrl(text);
  if (!checked.ok) {
    throw new UsageError(`--connect (WHILLY_CONTROL_URL) ${checked.problem}`, { hint: checked.hint });
  }
  return checked.url;
}
