import { lookup } from "node:dns/promises";
import { hostname, networkInterfaces } from "node:os";
import {
  createTokenAuth,
  jsonLogger,
  type Logger,
  parseServerSettings,
  startNodeServer,
} from "@whilly/worker-api";
import type { CliContext } from "../context.js";
import { logFailure, logStderrAsJson, noticesAsLog } from "../json-stderr.js";
import { wholeNumberOption } from "../options.js";
import { parseCliSettings } from "../settings.js";
import { openCliStore } from "../store/open-store.js";

/** `whilly server`'s work: serves until interrupted; stderr is JSON log lines. */
export async function runServer(
  ctx: CliContext,
  args: { port: string | undefined; host: string },
): Promise<void> {
  const log = jsonLogger(ctx.io.err);
  const release = logStderrAsJson(log, "server");
  try {
    await serve(ctx, log, { port: args.port, host: args.host });
  } catch (error) {
    // Logged here rather than printed by main, so that stderr stays JSON lines to the very end.
    ctx.exitCode = logFailure(log, "server.failed", error);
  } finally {
    release();
  }
}

/** Starts the server and runs it until the process is asked to stop. */
async function serve(ctx: CliContext, log: Logger, args: { port: string | undefined; host: string }) {
  const port = wholeNumberOption(args.port, "--port", { min: 0, max: 65_535 }, 8000) ?? 8000;
  const settings = parseServerSettings(ctx.io.env);
  const storeSettings = parseCliSettings({
    WHILLY_DATABASE_URL: ctx.io.env.WHILLY_DATABASE_URL,
    WHILLY_STORE_HANDOVER_WAIT: ctx.io.env.WHILLY_STORE_HANDOVER_WAIT,
  });
  const auth = createTokenAuth({ ...settings.auth, log });
  const store = await openCliStore(
    storeSettings,
    { ...ctx.io, err: noticesAsLog(log, "server.notice") },
    { own: true, command: "server" },
  );
  try {
    const server = await startNodeServer({ store, settings, auth, port, host: args.host, log });
    ctx.io.out.write(`${await connectUrl(server.url)}\n`);
    await stopped(ctx.io.interrupt);
    await server.close();
  } finally {
    await store.close();
  }
}

/** Resolves when the process is asked to stop (never, without an interrupt signal). */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * The URL to print for a server listening on `url`. Bound to every interface (`0.0.0.0`, `::`), its
 * address is no place to connect to, so another machine is pointed at this one's name, or at its first
 * external IPv4 address when the name does not resolve here (a container's random hostname), or at
 * 127.0.0.1 without one. The log's `server.listening` keeps the bound address.
 */
async function connectUrl(url: string): Promise<string> {
  const parsed = new URL(url);
  if (parsed.hostname !== "0.0.0.0" && parsed.hostname !== "[::]") return url;
  parsed.hostname = await reachableHost();
  return parsed.origin;
}

async function reachableHost(): Promise<string> {
  const name = hostname();
  try {
    await lookup(name);
    return name;
  } catch {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address !== undefined && address.family === "IPv4" && !address.internal);
    return external?.address ?? "127.0.0.1";
  }
}
