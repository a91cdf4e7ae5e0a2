import type { TaskSpec } from "../model.js";
import { show } from "./text.js";

/**
 * How whilly's checks treat one `test_steps` entry (docs/verification.md):
 * - `command`: run through `sh -c`; exit 127 (command not found) makes it manual after all;
 * - `manual`: written `manual: ...`, recorded and never run;
 * - `prose`: reads as instructions for a person, not a command; recorded as manual, never run;
 * - `whilly`: calls whilly itself, which the checks never run (it would recurse into the queue).
 */
export type TestStepKind = "command" | "manual" | "prose" | "whilly";

const MANUAL_PREFIX = /^\s*manual\s*:/i;
/** `VAR=value` words before a command, as `sh` reads them. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** whilly or whilly-worker, also by a path (`./node_modules/.bin/whilly`). */
const WHILLY = /^(?:\S*\/)?whilly(?:-worker)?$/;
/** Words that run the next word as the command. */
const LAUNCHERS = new Set(["npx", "env", "exec", "command", "time", "nohup"]);

// Prose, by shapes no real command has (a missed sentence still runs, exits 127 and becomes manual):
/** Text that starts with a letter outside ASCII: "Проверить что ...", "На primary: ...". */
const NON_ASCII_LETTER = /^\p{L}/u;
/** A numbered instruction: "1. Open ...", "2) Check ...". */
const NUMBERED = /^\d+[.)]\s/;
/** A first word ending in a colon: "On primary: ...", "TODO: ...". */
const LABEL = /^[\p{L}\p{N}_-]+:(?:\s|$)/u;
/** "(manual)" anywhere: "On machine B (manual) ...". */
const MARKED_MANUAL = /\(\s*manual\s*\)/i;
/** A capitalised word, as sentences start and commands almost never do ("Verify", "Open"). */
const CAPITALISED = /^[A-Z][a-z]+,?$/;
/** A plain word of a sentence, possibly quoted or followed by punctuation: "that", "`npm", "loads.". */
const PLAIN_WORD = /^[`"'(]?\p{L}[\p{L}'’-]*[`"'),;:.!?]*$/u;
/** A word of a sentence ending in a full stop, lower or upper case, nothing shell-like in it. */
const SENTENCE_WORD = /^\p{L}[\p{L}'’-]*[,;:]?$/u;

/**
 * Classifies a test step; see {@link TestStepKind}. The rule errs towards `command`: only shapes no
 * command has count as prose (a leading non-ASCII letter, a numbered item, a `label:` first word,
 * `(manual)`, a capitalised first word followed by a plain word, or a sentence of four or more plain
 * words ending in a full stop). A step is `whilly` when any command of its `&&`/`||`/`;`/`|` list
 * starts with whilly or whilly-worker (also by a path, or after `npx`, `env` or `VAR=value`). Pure.
 */
export function classifyTestStep(step: string): TestStepKind {
  if (MANUAL_PREFIX.test(step)) return "manual";
  if (callsWhilly(step)) return "whilly";
  if (readsAsProse(step.trim())) return "prose";
  return "command";
}

/**
 * What `plan import`, `plan show` and `run` print about `tasks` whose `test_steps` whilly's checks will
 * not run: one sentence naming the tasks with prose steps and those with steps calling whilly, and the
 * fix; none when every step is a command or written `manual:`. Task ids are quoted as in plan errors,
 * at most {@link MAX_NAMED} of each kind (then `and N more`), so a big plan still gets one line.
 */
export function testStepWarnings(tasks: readonly Pick<TaskSpec, "id" | "testSteps">[]): string[] {
  const prose = tasks.filter((task) => task.testSteps.some((step) => classifyTestStep(step) === "prose"));
  const whilly = tasks.filter((task) => task.testSteps.some((step) => classifyTestStep(step) === "whilly"));
  if (prose.length === 0 && whilly.length === 0) return [];
  const ids = (list: readonly { id: string }[]) => {
    const named = list.slice(0, MAX_NAMED).map((task) => show(task.id));
    return list.length > MAX_NAMED
      ? `${named.join(", ")} and ${list.length - MAX_NAMED} more`
      : named.join(", ");
  };
  const parts = [
    ...(prose.length > 0
      ? [`read as instructions for a person in ${label(prose.length)} ${ids(prose)}`]
      : []),
    ...(whilly.length > 0 ? [`call whilly itself in ${label(whilly.length)} ${ids(whilly)}`] : []),
  ];
  return [
    `'test_steps' that ${parts.join(" and ")} are not run by whilly's checks and count as manual; prefix manual steps with 'manual:' and write checks as shell commands`,
  ];
}

const MAX_NAMED = 10;
const label = (count: number) => (count === 1 ? "task" : "tasks");

/** True when whilly's checks run `step` (a `command`); the other kinds are recorded as manual. */
export function isRunnableStep(step: string): boolean {
  return classifyTestStep(step) === "command";
}

function readsAsProse(text: string): boolean {
  if (NON_ASCII_LETTER.test(text) && !/^[A-Za-z]/.test(text)) return true;
  if (NUMBERED.test(text) || LABEL.test(text) || MARKED_MANUAL.test(text)) return true;
  const words = text.split(/\s+/);
  const [first = "", second] = words;
  if (CAPITALISED.test(first) && second !== undefined && PLAIN_WORD.test(second)) return true;
  if (words.length < 4 || !text.endsWith(".")) return false;
  return words.every((word, index) =>
    SENTENCE_WORD.test(index === words.length - 1 ? word.slice(0, -1) : word),
  );
}

function callsWhilly(step: string): boolean {
  return commandsOf(step).some((words) => {
    let index = 0;
    while (
      index < words.length &&
      (ASSIGNMENT.test(words[index] ?? "") || LAUNCHERS.has(words[index] ?? ""))
    ) {
      index++;
    }
    return WHILLY.test(words[index] ?? "");
  });
}

/**
 * The words of each command in a shell list, split at `&&`, `||`, `;`, `|`, `&` and newlines outside
 * quotes; quoted text stays inside its word. An approximation of `sh`, enough to find first words.
 */
function commandsOf(step: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let quote: string | undefined;
  const endWord = () => {
    if (word !== "") words.push(word);
    word = "";
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < step.length; index++) {
    const char = step[index] ?? "";
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "\\") {
      word += step[++index] ?? "";
    } else if (char === "#" && word === "") {
      break;
    } else if (/[;&|\n()]/.test(char)) {
      endCommand();
    } else if (/\s/.test(char)) {
      endWord();
    } else {
      word += char;
    }
  }
  endCommand();
  return commands;
}
