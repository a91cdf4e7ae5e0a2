// Characters a terminal may act on instead of showing: the C0 controls (ESC starts escape sequences that
// recolour, move the cursor, clear the screen, set the title or the clipboard; CR overwrites a line),
// DEL, the C1 controls (U+009B is a one-character CSI on some terminals), and the bidirectional
// overrides and isolates, which reorder how the text after them is shown. Tab is harmless.
const UNSAFE_IN_LINES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_IN_LINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes untrusted text (plan names, task descriptions, an agent's failure message, a server's error
 * detail) safe to print on a terminal: every control character is shown as an escape instead of being
 * acted on, `\n` and `\r` as those two characters, the rest as `\uXXXX`. The escapes are JSON's own,
 * so JSON text passed through keeps its meaning (a raw C1 character in a JSON string becomes its
 * escape). Tab is kept.
 * @param mode `"line"` (default) escapes line feeds too, for text that must stay on one line (a table
 *   cell, a progress line, a title); `"lines"` keeps them.
 * @returns `text` unchanged when it holds nothing to escape.
 */
export function terminalText(text: string, mode: "line" | "lines" = "line"): string {
  return text.replace(mode === "line" ? UNSAFE_IN_LINE : UNSAFE_IN_LINES, escapeChar);
}

function escapeChar(char: string): string {
  if (char === "\n") return "\\n";
  if (char === "\r") return "\\r";
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
