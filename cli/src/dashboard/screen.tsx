import { render } from "ink";
import { DashboardApp } from "./app.js";
import type { DashboardController } from "./controller.js";

/**
 * Shows the dashboard full-screen on the terminal until `q`, Ctrl-C or `interrupt` (SIGTERM), then
 * restores the terminal.
 * Loaded only by `whilly dashboard`, so Ink and React cost other commands nothing.
 */
export async function showDashboard(
  controller: DashboardController,
  terminal: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream },
  color: boolean,
  interrupt: AbortSignal | undefined,
): Promise<void> {
  const app = render(<DashboardApp controller={controller} color={color} />, {
    stdin: terminal.input,
    stdout: terminal.output,
    exitOnCtrlC: true,
    patchConsole: false,
  });
  const stop = () => app.unmount();
  interrupt?.addEventListener("abort", stop, { once: true });
  try {
    await app.waitUntilExit();
  } finally {
    interrupt?.removeEventListener("abort", stop);
    controller.stop();
    app.unmount();
  }
}
