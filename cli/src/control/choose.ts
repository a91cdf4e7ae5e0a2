import { ConfigurationError } from "@whilly/core";
import { connectTimeoutMs } from "../connect-timeout.js";
import type { CliContext } from "../context.js";
import { type ControlActions, remoteControlActions, storeControlActions } from "./actions.js";

/**
 * The {@link ControlActions} a command acts through: the control plane `connect` names (with
 * `WHILLY_ADMIN_TOKEN`; `WHILLY_CONNECT_TIMEOUT` bounds each request), or else the store this CLI uses
 * (`WHILLY_DATABASE_URL`, a control plane's database, or the embedded store under `.whilly/`).
 * @throws {ConfigurationError} when the URL is not http(s), the admin token is not set, or the timeout
 *   is bad; whatever opening the store throws (a missing embedded store: run `whilly init` first).
 */
export async function controlActionsFor(
  ctx: CliContext,
  connect: string | undefined,
): Promise<ControlActions> {
  if (connect === undefined) return storeControlActions(await ctx.store({ mustExist: true }));
  if (!/^https?:\/\/[^/]/.test(connect)) {
    throw new ConfigurationError(`--connect must be an http:// or https:// URL; got '${connect}'`, {
      hint: "e.g. --connect http://control-host:8000 (what whilly server printed)",
    });
  }
  const token = ctx.io.env.WHILLY_ADMIN_TOKEN?.trim();
  if (!token) {
    throw new ConfigurationError(
      "--connect needs the control plane's admin token, and WHILLY_ADMIN_TOKEN is not set",
      {
        hint: "set WHILLY_ADMIN_TOKEN to the server's admin token; a read-only token cannot act",
      },
    );
  }
  return remoteControlActions({ url: connect, token, timeoutMs: connectTimeoutMs(ctx.io.env) });
}
