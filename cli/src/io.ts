import { randomBytes } from "node:crypto";
import { styleText } from "node:util";
import { terminalText } from "@whilly/core";

/** A writable text stream, as `process.stdout` is. */
export type Out = { write(text: string): unknown; isTTY?: boolean | undefined };

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
  /**
   * Asks questions one at a time (each written to stderr, answered by a line of stdin) and returns the
   * answers; `undefined` when stdin ended or `signal` fired first. `undefined` when there is no input.
   */
  readonly ask?: Ask | undefined;
  /** True when stdin is a terminal: `whilly init` then asks its questions unless told `--headless`. */
  readonly stdinIsTTY?: boolean | undefined;
  /**
   * The raw terminal, for a full-screen view (`whilly dashboard`) that draws with escape codes itself;
   * `undefined` unless both stdin and stdout are terminals.
   */
  readonly terminal?: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream } | undefined;
};

/** See {@link Io.ask}. */
export type Ask = (questions: readonly string[], signal?: AbortSignal) => Promise<string[] | undefined>;

/** Text styles whilly uses. */
export type Style = "red" | "green" | "yellow" | "cyan" | "gray" | "bold" | "dim";

// The painter's escape sequences carry this per-process mark in place of ESC until a safe stream writes
// them, so that stream can tell them from an ESC inside untrusted text (which it escapes). Nothing a
// plan file or an agent writes can guess it.
const OWN_ESC = `\uE000${randomBytes(8).toString("hex")}\uE001`;
const OWN_SGR = new RegExp(`${OWN_ESC}\\[[0-9;]*m`, "g");
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
const ESC = /\u001b/g;

/**
 * Colours text for `stream` unless colour is off: `NO_COLOR` set (any value), `--no-color`, or a
 * stream that is not a terminal (https://no-color.org). Colour never carries meaning alone. The
 * colours show only through a stream made by {@link terminalSafe}, which `main` gives every command.
 */
export function painter(
  stream: Out,
  env: Io["env"],
  disabled = false,
): (style: Style, text: string) => string {
  const on = !disabled && stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb";
  return (style, text) =>
    on
      ? styleText(style, terminalText(text, "lines"), { validateStream: false }).replace(ESC, OWN_ESC)
      : text;
}

/**
 * A stream that shows every control character written to it as an escape ({@link terminalText},
 * line feeds and tabs kept), except the colours {@link painter} made. Every human-facing line whilly
 * prints holds text from plan files, agents or servers; escaping it here, where all of it passes,
 * leaves no path that could reach the terminal raw. JSON written through it keeps its meaning.
 */
export function terminalSafe(stream: Out): Out {
  return {
    isTTY: stream.isTTY,
    write: (text: string) => stream.write(terminalText(text, "lines").split(OWN_ESC).join("\u001b")),
  };
}

/** The width of `text` on a terminal in UTF-16 code units, leaving out the painter's colours. */
export function visibleLength(text: string): number {
  return text.replace(OWN_SGR, "").length;
}

/** Writes `error: <message>` and, when given, `hint: <hint>` to stderr. */
export function printError(io: Pick<Io, "err" | "env">, message: string, hint?: string): void {
  const paint = painter(io.err, io.env);
  io.err.write(`${paint("red", "error:")} ${message}\n`);
  if (hint) io.err.write(`${paint("dim", "hint:")} ${hint}\n`);
}

/** Writes `warning: <message>` to stderr. */
export function printWarning(io: Io, message: string): void {
  const paint = painter(io.err, io.env);
  io.err.write(`${paint("yellow", "warning:")} ${message}\n`);
}
