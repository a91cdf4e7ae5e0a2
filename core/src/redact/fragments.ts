import { REDACTED } from "./patterns.js";

/**
 * Known secrets at least this long also have their fragments hidden ({@link FRAGMENT_LENGTH}); shorter
 * ones are hidden only whole, as a fragment of them is too short to tell from ordinary text.
 */
export const FRAGMENT_MIN_SECRET_LENGTH = 20;

/**
 * The shortest run of a known secret's characters hidden on its own: a shell's `${KEY#sk-ant-}`, a
 * cut line or a substring the agent printed. 16 random characters do not occur in ordinary text by chance.
 */
export const FRAGMENT_LENGTH = 16;

/**
 * Every fragment of {@link FRAGMENT_LENGTH} holds a whole block of this many characters starting at a
 * multiple of it, so the text is looked up every `ANCHOR` characters, not at every one.
 */
const ANCHOR = FRAGMENT_LENGTH / 2;

/** The well-known prefixes a shell or a script strips (`${KEY#sk-ant-}`): what is left is the secret. */
const PREFIX =
  /^(?:sk-ant-(?:[a-z]+\d\d-)?|sk-(?:proj-|svcacct-|admin-)?|gh[pousr]_|github_pat_|gl[a-z]+-|xox[abposr]-|xapp-|whilly_read_)/;
const SUB_PREFIX = /^sk-ant-/;

/** Values that are file paths or URLs: their fragments are ordinary text (`/home/runner/work/`). */
const PATH_OR_URL = /^(?:~|\.{1,2})?\/|:\/\//;

type Anchor = { readonly secret: string; readonly offset: number };

const indexes = new WeakMap<readonly string[], Map<string, Anchor[]>>();

/**
 * The remainders of `secret` once a well-known prefix is stripped (`sk-ant-api03-…` gives `api03-…`
 * and `…`), for secrets of at least {@link FRAGMENT_MIN_SECRET_LENGTH}; hidden whole like the secret.
 */
export function strippedRemainders(secret: string): string[] {
  if (secret.length < FRAGMENT_MIN_SECRET_LENGTH) return [];
  const out: string[] = [];
  for (const re of [SUB_PREFIX, PREFIX]) {
    const head = re.exec(secret)?.[0];
    if (head !== undefined && head !== "") out.push(secret.slice(head.length));
  }
  return out;
}

/** A map of every {@link ANCHOR}-character block of the long secrets in `known` to where it occurs. */
function indexOf(known: readonly string[]): Map<string, Anchor[]> {
  const cached = indexes.get(known);
  if (cached !== undefined) return cached;
  const index = new Map<string, Anchor[]>();
  for (const secret of new Set(known)) {
    if (secret.length < FRAGMENT_MIN_SECRET_LENGTH || PATH_OR_URL.test(secret)) continue;
    for (let offset = 0; offset + ANCHOR <= secret.length; offset++) {
      const block = secret.slice(offset, offset + ANCHOR);
      const anchors = index.get(block) ?? [];
      // A block repeated many times in one secret (`aaaaaaaa`) needs no more anchors to be found.
      if (anchors.length < 8) anchors.push({ secret, offset });
      index.set(block, anchors);
    }
  }
  indexes.set(known, index);
  return index;
}

/**
 * Random-looking: letters and digits, or both cases. A run of one class (`correct-horse-battery`)
 * may be ordinary words, so it is not hidden as a fragment (the whole value still is).
 */
function mixed(text: string): boolean {
  const lower = /[a-z]/.test(text);
  const upper = /[A-Z]/.test(text);
  const digit = /[0-9]/.test(text);
  return (lower && upper) || ((lower || upper) && digit);
}

/**
 * Hides every run of at least {@link FRAGMENT_LENGTH} characters of `text` that is also a run of one
 * of the secrets in `known` of at least {@link FRAGMENT_MIN_SECRET_LENGTH} (not paths or URLs) and
 * mixes letters and digits or cases; each run becomes `[redacted]`. Linear in `text`: one lookup
 * every 8 characters; `known`'s index is kept for the next call with the same array.
 */
export function redactFragments(text: string, known: readonly string[]): string {
  if (known.length === 0 || text.length < FRAGMENT_LENGTH) return text;
  const index = indexOf(known);
  if (index.size === 0) return text;
  const ranges: Range[] = [];
  for (let at = 0; at + ANCHOR <= text.length; at += ANCHOR) {
    const anchors = index.get(text.slice(at, at + ANCHOR));
    const run = anchors === undefined ? undefined : longestRun(text, at, anchors);
    if (run === undefined || !mixed(text.slice(run[0], run[1]))) continue;
    const last = ranges.at(-1);
    if (last !== undefined && run[0] <= last[1]) {
      last[0] = Math.min(last[0], run[0]);
      last[1] = Math.max(last[1], run[1]);
    } else ranges.push(run);
    // The rest of this run holds no new fragment; a fragment running past it has a block after it.
    at = Math.max(at, Math.floor(run[1] / ANCHOR) * ANCHOR - ANCHOR);
  }
  return replaceRanges(text, ranges);
}

/** `[start, end)` in a text, in UTF-16 units. */
type Range = [number, number];

/**
 * The longest run of `text` around the block at `at` that is also a run of a secret holding that
 * block, when it is at least {@link FRAGMENT_LENGTH} long.
 */
function longestRun(text: string, at: number, anchors: readonly Anchor[]): Range | undefined {
  let best: Range | undefined;
  for (const { secret, offset } of anchors) {
    let start = at;
    let end = at + ANCHOR;
    for (let j = offset - 1; start > 0 && j >= 0 && text[start - 1] === secret[j]; j--) start--;
    for (let j = offset + ANCHOR; end < text.length && j < secret.length && text[end] === secret[j]; j++) {
      end++;
    }
    const longer = best === undefined || end - start > best[1] - best[0];
    if (end - start >= FRAGMENT_LENGTH && longer) best = [start, end];
  }
  return best;
}

/** `text` with each of the sorted, disjoint `ranges` replaced by `[redacted]`. */
function replaceRanges(text: string, ranges: readonly Range[]): string {
  if (ranges.length === 0) return text;
  let out = "";
  let from = 0;
  for (const [start, end] of ranges) {
    out += `${text.slice(from, start)}${REDACTED}`;
    from = end;
  }
  return out + text.slice(from);
}
