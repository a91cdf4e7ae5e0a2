import { render } from "ink";
import { DashboardApp } from "./app.js";
import type { DashboardController } from "./controller.js";

/**
 * Shows the dashboard full-screen on the terminal until `q` (or Ctrl-C), then restores the terminal.
 * Loaded only by `whilly dashboard`, so Ink and React cost other commands nothing.
 */
export async function showDashboard(
  controller: DashboardController,
  terminal: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream },
  color: boolean,
): Promise<void> {
  const app = render(<DashboardApp controller={controller} color={color} />, {
    stdin: terminal.input,
    stdout: terminal.output,
    exitOnCtrlC: true,
    patchConsole: false,
  });
  try {
    await app.waitUntilExit();
  } finally {
    controller.stop();
    app.unmount();
  }
}
