import { render } from "ink";
import { DashboardApp } from "./app.js";
import type { DashboardController } from "./controller.js";

/**
 * Shows the dashboard full-screen on the terminal until `q`, Ctrl-C or `interrupt` (SIGTERM), then
 * restores the terminal. @returns whether Ctrl-C or `interrupt` ended it (exit 130) rather than `q`.
 * Loaded only by `whilly dashboard`, so Ink and React cost other commands nothing.
 */
export async function showDashboard(
  controller: DashboardController,
  terminal: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream },
  color: boolean,
  interrupt: AbortSignal | undefined,
): Promise<boolean> {
  let interrupted = false;
  const app = render(
    <DashboardApp controller={controller} color={color} onInterrupt={() => (interrupted = true)} />,
    {
      stdin: terminal.input,
      stdout: terminal.output,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  const stop = () => {
    interrupted = true;
    app.unmount();
  };
  interrupt?.addEventListener("abort", stop, { once: true });
  try {
    await app.waitUntilExit();
  } finally {
    interrupt?.removeEventListener("abort", stop);
    controller.stop();
    app.unmount();
  }
  return interrupted;
}
