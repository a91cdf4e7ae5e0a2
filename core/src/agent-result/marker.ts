/**
 * The line an agent prints when, and only when, it finished its task (docs/agent.md, "The verdict").
 * The prompt asks for it; {@link endsWithCompletionMarker} checks it.
 */
export const COMPLETION_MARKER = "<promise>COMPLETE</promise>";

/**
 * A code fence opening a line, after blanks: a line break (or the start) and then whitespace other than
 * line breaks. Written without `^\s*` in multiline mode, which retries every line start of a run of blank
 * lines and takes quadratic time on a result text of many of them.
 */
const FENCE = /(?:^|[\n\r\u2028\u2029])[^\S\n\r\u2028\u2029]*(?:```|~~~)/g;

/**
 * True when the marker ends `text` (trailing whitespace allowed) outside any code: a marker the agent
 * merely quotes ("I will print <promise>COMPLETE</promise> when done"), puts in backticks, or writes inside
 * a fenced block does not count, because agents describe the marker long before they earn it.
 */
export function endsWithCompletionMarker(text: string, marker: string = COMPLETION_MARKER): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith(marker)) return false;
  const before = trimmed.slice(0, trimmed.length - marker.length);
  const fences = before.match(FENCE)?.length ?? 0;
  if (fences % 2 === 1) return false;
  const lastLine = before.slice(before.lastIndexOf("\n") + 1);
  const backticks = lastLine.split("`").length - 1;
  return backticks % 2 === 0;
}
