import { ConfigurationError, EXIT } from "@whilly/core";
import type { Argv } from "yargs";
import { connectTimeoutMs } from "../connect-timeout.js";
import type { CliContext } from "../context.js";
import { type ControlActions, remoteControlActions, storeControlActions } from "../control/actions.js";
import { DashboardController } from "../dashboard/controller.js";
import { dashboardText } from "../dashboard/text.js";
import { textFlag } from "../options.js";
import { remoteSource } from "./events.js";

/**
 * `whilly dashboard [--plan ID] [--connect URL] [--once]`: a live view of a plan (tasks, workers,
 * spend, the latest events) from the store or a control plane. On a terminal it is full-screen, with
 * keys to filter and move through tasks and to reset, release or pause (after a y/N confirmation);
 * otherwise it prints a plain snapshot every refresh (`WHILLY_DASHBOARD_REFRESH`), or once with
 * `--once`. docs/dashboard.md describes it.
 */
export function dashboardCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "dashboard",
    "Watch a plan live: tasks, workers, spend and events (q quits)",
    (a) =>
      a
        .option("plan", { type: "string", describe: "the plan to show (default: the only plan)" })
        .option("connect", {
          type: "string",
          describe:
            "read from this control plane (WHILLY_READ_TOKEN or WHILLY_ADMIN_TOKEN; actions need WHILLY_ADMIN_TOKEN)",
        })
        .option("once", { type: "boolean", default: false, describe: "print one plain snapshot and exit" })
        .option("color", {
          type: "boolean",
          default: true,
          describe: "colour the view (--no-color; NO_COLOR)",
        }),
    async (args) => {
      const terminal = args.once ? undefined : ctx.io.terminal;
      // Loaded here only, as Ink and React would slow every other command's start; loading them while
      // the store opens hides most of their own start (seconds on a busy machine).
      const screen = terminal ? import("../dashboard/screen.js") : undefined;
      screen?.catch(() => undefined);
      // The store's event feed comes with the sources.
      const { choosePlan, remoteDashboardSource, storeSource } = await import("../dashboard/sources.js");
      const connect = textFlag(args.connect, "--connect");
      const env = ctx.io.env;
      const pollMs = ctx.settings.eventsPollMs;
      let source: ReturnType<typeof storeSource>;
      let actions: ControlActions;
      if (connect !== undefined) {
        const remote = remoteSource(connect, env);
        source = remoteDashboardSource(remote, pollMs);
        actions = adminActions(connect, env);
      } else {
        const store = await ctx.store({ mustExist: true });
        source = storeSource(store, pollMs);
        actions = storeControlActions(store);
      }
      const planId = await choosePlan(source, textFlag(args.plan, "--plan"));
      const controller = new DashboardController(source, planId, ctx.settings.dashboardRefreshMs, actions);
      const color = args.color && env.NO_COLOR === undefined && env.TERM !== "dumb";
      if (terminal && screen) {
        await controller.start(true);
        const { showDashboard } = await screen;
        if (await showDashboard(controller, terminal, color, ctx.io.interrupt))
          ctx.exitCode = EXIT.interrupted;
        return;
      }
      if (args.once) {
        await controller.start(false);
        ctx.io.out.write(dashboardText(controller.view(), Date.now(), controller.status));
        return;
      }
      await plainSnapshots(ctx, controller);
    },
  );
}

/** Prints a snapshot every refresh until Ctrl-C (exit 130). */
async function plainSnapshots(ctx: CliContext, controller: DashboardController): Promise<void> {
  const signal = ctx.io.interrupt;
  await controller.start(true);
  try {
    while (!signal?.aborted) {
      ctx.io.out.write(`${dashboardText(controller.view(), Date.now(), controller.status)}\n`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, controller.refreshMs);
        signal?.addEventListener("abort", done, { once: true });
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        }
      });
    }
  } finally {
    controller.stop();
  }
  ctx.exitCode = EXIT.interrupted;
}

/** The control plane's actions with `WHILLY_ADMIN_TOKEN`; without it each action says it is needed. */
function adminActions(url: string, env: Readonly<Record<string, string | undefined>>): ControlActions {
  const token = env.WHILLY_ADMIN_TOKEN?.trim();
  if (token) return remoteControlActions({ url, token, timeoutMs: connectTimeoutMs(env) });
  const refuse = async () => {
    throw new ConfigurationError("actions need WHILLY_ADMIN_TOKEN (a read token cannot act)");
  };
  return { resetTask: refuse, releaseTask: refuse, pauseWorkers: refuse, resumeWorkers: refuse };
}
