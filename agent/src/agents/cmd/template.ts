import { ConfigurationError } from "@whilly/core";

/** The placeholders an `--agent-cmd` template may hold, each replaced within one argument. */
export const CMD_PLACEHOLDERS = ["prompt", "prompt_file", "model", "workdir", "task_id"] as const;

/** One placeholder's name. */
export type CmdPlaceholder = (typeof CMD_PLACEHOLDERS)[number];

/** A part of one word: literal text, or a placeholder replaced at run time. */
type Part = { readonly text: string } | { readonly placeholder: CmdPlaceholder };

/** A parsed template: its words, each one argument of the command line. */
export type CmdTemplate = {
  /** The template as given, for messages. */
  readonly source: string;
  readonly words: readonly (readonly Part[])[];
};

/** What the placeholders stand for in one run. */
export type CmdValues = Readonly<Record<CmdPlaceholder, string>>;

const HINT_EXAMPLE = "e.g. --agent-cmd 'my-agent --prompt-file {prompt_file} --model {model}'";

/**
 * Splits an `--agent-cmd` template (`WHILLY_AGENT_CMD`) into words the way a shell would, without
 * running one: blanks separate words, `'...'` keeps its text as is, `"..."` keeps it but for `\"`,
 * `\\`, `\$` and `` \` ``, and a backslash outside quotes keeps the next character. `{prompt}`,
 * `{prompt_file}`, `{model}`, `{workdir}` and `{task_id}` may stand anywhere in a word (quoted or
 * not); any other `{name}` made of lowercase letters and `_` is refused, other braces are text. No
 * expansion of any kind happens ($, globs, ~), so what replaces a placeholder stays inside its word.
 * @param name how the template was given, for messages (`--agent-cmd (WHILLY_AGENT_CMD)`).
 * @throws {ConfigurationError} naming `name` and the fix: an empty template, an unbalanced quote, a
 *   trailing backslash, an unknown placeholder.
 */
export function parseCmdTemplate(source: string, name = "--agent-cmd (WHILLY_AGENT_CMD)"): CmdTemplate {
  const fail = (problem: string, fix: string): never => {
    throw new ConfigurationError(`${name}: ${problem}`, { hint: `${fix}; ${HINT_EXAMPLE}` });
  };
  const state: Scan = { words: [], word: undefined, text: "", quote: undefined };
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i] as string;
    if (state.quote === undefined && /\s/.test(c)) {
      endWord(state);
      continue;
    }
    state.word ??= [];
    const placeholder = c === "{" ? placeholderAt(source, i, fail) : undefined;
    if (placeholder !== undefined) {
      flushText(state);
      state.word.push({ placeholder: placeholder.name });
      i += placeholder.length - 1;
    } else if (c === "\\" && state.quote !== "'") {
      const next = source[i + 1];
      if (next === undefined) fail("ends with a backslash", "drop it, or quote the text");
      escaped(state, next as string);
      i += 1;
    } else {
      quoteOrText(state, c);
    }
  }
  if (state.quote !== undefined) fail(`the quote ${state.quote} is not closed`, "close it");
  endWord(state);
  const program = state.words[0];
  if (program === undefined) fail("is empty", "give the command to run");
  if (program?.length === 0) fail("the program (its first word) is empty", "name the program first");
  return { source, words: state.words };
}

/**
 * The placeholder starting at `source[i]` (a `{`), when one is there: `{name}` of lowercase letters
 * and `_`; such a name that is not a placeholder is refused through `fail`.
 */
function placeholderAt(
  source: string,
  i: number,
  fail: (problem: string, fix: string) => never,
): { readonly name: CmdPlaceholder; readonly length: number } | undefined {
  const match = /^\{([a-z_]+)\}/.exec(source.slice(i, i + 40));
  if (!match) return undefined;
  const name = match[1] as string;
  if (!(CMD_PLACEHOLDERS as readonly string[]).includes(name)) {
    fail(`unknown placeholder {${name}}`, `use ${CMD_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}`);
  }
  return { name: name as CmdPlaceholder, length: match[0].length };
}

/** Characters a backslash escapes inside double quotes. */
const DOUBLE_QUOTE_ESCAPES = ['"', "\\", "$", "`"];

/** The character after a backslash: kept as is, but inside double quotes only what a shell escapes there. */
function escaped(state: Scan, next: string): void {
  if (state.quote === '"' && !DOUBLE_QUOTE_ESCAPES.includes(next)) state.text += "\\";
  state.text += next;
}

/** Where {@link parseCmdTemplate} is: the words so far, the one being read, its pending text, the open quote. */
type Scan = { words: Part[][]; word: Part[] | undefined; text: string; quote: "'" | '"' | undefined };

/** A quote opens or closes, or `c` is text of the word. */
function quoteOrText(state: Scan, c: string): void {
  if (state.quote !== undefined && c === state.quote) state.quote = undefined;
  else if (state.quote === undefined && (c === "'" || c === '"')) state.quote = c;
  else state.text += c;
}

function flushText(state: Scan): void {
  if (state.text === "") return;
  state.word ??= [];
  state.word.push({ text: state.text });
  state.text = "";
}

function endWord(state: Scan): void {
  flushText(state);
  if (state.word !== undefined) state.words.push(state.word);
  state.word = undefined;
}

/**
 * The command line of one run: each word of `template` with its placeholders replaced by `values`.
 * A value never splits a word or joins two, whatever it holds (quotes, `$(...)`, `;`, newlines): the
 * result goes to `spawn` directly, never to a shell. A word that was quoted empty stays an empty argument.
 */
export function substituteCmd(template: CmdTemplate, values: CmdValues): string[] {
  return template.words.map((parts) =>
    parts.map((part) => ("text" in part ? part.text : values[part.placeholder])).join(""),
  );
}

/** True when some word of `template` uses `placeholder`. */
export function usesPlaceholder(template: CmdTemplate, placeholder: CmdPlaceholder): boolean {
  return template.words.some((parts) =>
    parts.some((part) => "placeholder" in part && part.placeholder === placeholder),
  );
}
