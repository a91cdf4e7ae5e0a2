import { render } from "ink";
import { DashboardApp } from "./app.js";
import type { DashboardController } from "./controller.js";

const ENTER_ALTERNATE_SCREEN = "\u001b[?1049h\u001b[H";
const LEAVE_ALTERNATE_SCREEN = "\u001b[?1049l";

/**
 * Shows the dashboard full-screen on the terminal (its alternate screen) until `q`, Ctrl-C or
 * `interrupt` (SIGTERM), then restores the terminal as it was. Loaded only by `whilly dashboard`, so
 * Ink and React cost other commands nothing.
 * @returns whether Ctrl-C or `interrupt` ended it (exit 130) rather than `q`.
 */
export async function showDashboard(
  controller: DashboardController,
  terminal: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream },
  color: boolean,
  interrupt: AbortSignal | undefined,
): Promise<boolean> {
  let interrupted = false;
  // The terminal's alternate screen, as full-screen programs use: leaving it gives back what was there.
  terminal.output.write(ENTER_ALTERNATE_SCREEN);
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
    terminal.output.write(LEAVE_ALTERNATE_SCREEN);
  }
  return interrupted;
}
