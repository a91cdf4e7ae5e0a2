import { ConfigurationError, EXIT } from "@whilly/core";
import type { Argv } from "yargs";
import { connectTimeoutMs } from "../connect-timeout.js";
import type { CliContext } from "../context.js";
import { type EventView, eventLine } from "../events/event-view.js";
import { printRemoteEvents, type RemoteSource } from "../events/follow-remote.js";
import type { EventsQuery } from "../events/follow-store.js";
import { painter } from "../io.js";
import { textFlag, wholeNumberOption } from "../options.js";

/** How long a request to the control plane may take (ms) unless `WHILLY_CONNECT_TIMEOUT` says. */

/**
 * `whilly events <plan_id> [--follow] [--json] [--after ID] [--limit N] [--connect URL]`: a plan's
 * audit log, one line per event (`--json`: one JSON object per line, the read API's event shape plus
 * `worker_id`), from the store or from a control plane; `--follow` keeps printing new events until
 * Ctrl-C (exit 130) or `--limit`. docs/cli.md describes it.
 */
export function eventsCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "events <plan_id>",
    "Print a plan's audit log; --follow keeps printing new events",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("follow", {
          alias: "f",
          type: "boolean",
          default: false,
          describe: "keep printing events as they are committed, until Ctrl-C",
        })
        .option("json", { type: "boolean", default: false, describe: "print one JSON object per line" })
        .option("after", { type: "string", describe: "print only events after this event id" })
        .option("limit", { type: "string", describe: "stop after this many events" })
        .option("connect", {
          type: "string",
          describe:
            "read from this control plane (WHILLY_READ_TOKEN or WHILLY_ADMIN_TOKEN) instead of the store",
        })
        .option("color", {
          type: "boolean",
          default: true,
          describe: "colour the output (--no-color; NO_COLOR)",
        }),
    async (args) => {
      const query: EventsQuery = {
        planId: String(args.plan_id),
        afterId: wholeNumberOption(args.after, "--after", { min: 0, max: Number.MAX_SAFE_INTEGER }),
        limit: wholeNumberOption(args.limit, "--limit", { min: 1, max: Number.MAX_SAFE_INTEGER }),
        follow: args.follow,
        signal: ctx.io.interrupt,
      };
      const connect = textFlag(args.connect, "--connect");
      const remote = connect === undefined ? undefined : remoteSource(connect, ctx.io.env);
      const pollMs = ctx.settings.eventsPollMs;
      const paint = painter(ctx.io.out, ctx.io.env, !args.color);
      const emit = (event: EventView) =>
        ctx.io.out.write(`${args.json ? JSON.stringify(event) : paintLine(eventLine(event), paint)}\n`);
      if (remote) await printRemoteEvents(remote, query, pollMs, emit);
      else {
        const { printStoreEvents } = await import("../events/follow-store.js");
        await printStoreEvents(await ctx.store({ mustExist: true }), query, pollMs, emit);
      }
      if (ctx.io.interrupt?.aborted) ctx.exitCode = EXIT.interrupted;
    },
  );
}

/** Greys the id and time of a human line. */
function paintLine(line: string, paint: ReturnType<typeof painter>): string {
  const [id = "", time = "", ...rest] = line.split("  ");
  return [paint("gray", `${id}  ${time}`), ...rest].join("  ");
}

/**
 * The control plane `--connect` names, with a reader's token: `WHILLY_READ_TOKEN` (a read-only token)
 * first, else `WHILLY_ADMIN_TOKEN`; `WHILLY_CONNECT_TIMEOUT` bounds each request's answer.
 * @throws {ConfigurationError} when the URL is not http(s), neither token is set, or the timeout is bad.
 */
export function remoteSource(url: string, env: Readonly<Record<string, string | undefined>>): RemoteSource {
  if (!/^https?:\/\/[^/]/.test(url)) {
    throw new ConfigurationError(`--connect must be an http:// or https:// URL; got '${url}'`, {
      hint: "e.g. --connect http://control-host:8000 (what whilly server printed)",
    });
  }
  const token = env.WHILLY_READ_TOKEN?.trim() || env.WHILLY_ADMIN_TOKEN?.trim();
  if (!token) {
    throw new ConfigurationError(
      "--connect needs a read credential, WHILLY_READ_TOKEN or WHILLY_ADMIN_TOKEN, and neither is set",
      {
        hint: "set WHILLY_READ_TOKEN to a read token (whilly token create --read-only on the server's database) or WHILLY_ADMIN_TOKEN to the server's admin token",
      },
    );
  }
  const timeoutMs = connectTimeoutMs(env);
  return { url, token, timeoutMs };
}
