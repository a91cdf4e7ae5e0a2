import { styleText } from "node:util";

/** A writable text stream, as `process.stdout` is. */
export type Out = { write(text: string): unknown; isTTY?: boolean };

/**
 * The CLI's world: streams, environment and working directory. `main` passes the process's;
 * tests pass their own and read what was written.
 */
export type Io = {
  readonly out: Out;
  readonly err: Out;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Answers a yes/no question on a terminal; `undefined` when stdin is not a TTY. */
  readonly confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Aborted on SIGINT or SIGTERM: long commands stop cleanly and exit 130. */
  readonly interrupt?: AbortSignal | undefined;
};

/** Text styles whilly uses. */
export type Style = "red" | "green" | "yellow" | "cyan" | "gray" | "bold" | "dim";

/**
 * Colours text for `stream` unless colour is off: `NO_COLOR` set (any value), `--no-color`, or a
 * stream that is not a terminal (https://no-color.org). Colour never carries meaning alone.
 */
export function painter(
  stream: Out,
  env: Io["env"],
  disabled = false,
): (style: Style, text: string) => string {
  const on = !disabled && stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb";
  return (style, text) => (on ? styleText(style, text, { validateStream: false }) : text);
}

/** Writes `error: <message>` and, when given, `hint: <hint>` to stderr. */
export function printError(io: Io, message: string, hint?: string): void {
  const paint = painter(io.err, io.env);
  io.err.write(`${paint("red", "error:")} ${message}\n`);
  if (hint) io.err.write(`${paint("dim", "hint:")} ${hint}\n`);
}

/** Writes `warning: <message>` to stderr. */
export function printWarning(io: Io, message: string): void {
  const paint = painter(io.err, io.env);
  io.err.write(`${paint("yellow", "warning:")} ${message}\n`);
}
