import type { Argv } from "yargs";
import type { CliContext } from "../context.js";

/**
 * `whilly server [--port 8000] [--host 127.0.0.1]`: the control plane over HTTP for remote workers.
 * Serves Postgres when `WHILLY_DATABASE_URL` is set, else the embedded store in `.whilly/` (the server
 * then owns it and serves it to the other whilly commands run there, docs/cli.md). Prints its URL on stdout;
 * everything on stderr is a JSON log line, its signals and its failures too (`server.signal`,
 * `server.failed`); SIGTERM or SIGINT shut it down gracefully (exit 0).
 */
export function serverCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "server",
    "Serve the control plane over HTTP for whilly-worker processes",
    (a) =>
      a
        .option("port", { type: "string", describe: "TCP port, default 8000 (0: any free port)" })
        .option("host", {
          type: "string",
          default: "127.0.0.1",
          describe: "interface to bind; 0.0.0.0 lets workers on other machines connect",
        })
        .epilogue(
          "Environment: WHILLY_WORKER_BOOTSTRAP_TOKEN (required), WHILLY_DATABASE_URL, WHILLY_WORKER_TOKEN " +
            "(deprecated), WHILLY_TOKEN_SECRET, WHILLY_VISIBILITY_TIMEOUT (s, 900), WHILLY_HEARTBEAT_TIMEOUT " +
            "(s, 120), WHILLY_SWEEP_INTERVAL (s, 15), WHILLY_CLAIM_TIMEOUT (s, 30), WHILLY_CLAIM_RECHECK (s, 5), " +
            "WHILLY_WEB_DIR (the web dashboard served at /, default @whilly/web's dist).",
        ),
    async (args) => {
      // The control plane (Hono, jose, the store) loads only when a server starts.
      const { runServer } = await import("./server-handler.js");
      await runServer(ctx, args);
    },
  );
}
