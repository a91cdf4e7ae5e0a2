import { redactFragments, strippedRemainders } from "./fragments.js";
import { REDACTED, SECRET_SHAPES } from "./patterns.js";

/**
 * The shortest known secret value that is hidden: shorter values (`1`, `true`, a port) would blank
 * ordinary words all over the output.
 */
export const MIN_SECRET_LENGTH = 8;

/** Names of environment variables whose values are secrets: `ANTHROPIC_API_KEY`, `GH_TOKEN`, `PGPASSWORD`. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

const PEM_END = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/;
const PEM_BEGIN = /-----BEGIN[ A-Z0-9]*PRIVATE KEY/;

/**
 * Hides credentials in `text`: every value in `known` of at least {@link MIN_SECRET_LENGTH}
 * characters (longest first, so a secret containing another is hidden whole), and for values of 20
 * characters or more also what is left once a well-known prefix is stripped (`${KEY#sk-ant-}`) and
 * every run of 16 of their characters or more ({@link redactFragments}: a cut, a substring); then every well-known
 * token shape ({@link SECRET_SHAPES}: GitHub, GitLab, AWS, Slack, OpenAI, Anthropic, JWTs, private key
 * blocks, URL passwords, bearer headers, `name=value` assignments of keys, tokens and passwords).
 * A private key whose BEGIN line was cut off (text that starts inside the block) is hidden from the start.
 * Pure and total; applying it twice gives the same text.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  const values = [...new Set(known)].filter((v) => v.length >= MIN_SECRET_LENGTH);
  values.sort((a, b) => b.length - a.length);
  for (const value of values) {
    if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  // Fragments before remainders, so a remainder inside a longer fragment leaves no piece beside it.
  out = redactFragments(out, known);
  for (const rest of values.flatMap(strippedRemainders)) {
    if (rest.length >= MIN_SECRET_LENGTH && out.includes(rest)) out = out.split(rest).join(REDACTED);
  }
  const end = PEM_END.exec(out);
  if (end !== null && !PEM_BEGIN.test(out.slice(0, end.index))) {
    out = `${REDACTED}${out.slice(end.index + end[0].length)}`;
  }
  for (const shape of SECRET_SHAPES) {
    out = out.replace(shape.pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((g): g is string => typeof g === "string");
      return `${shape.keep(match, ...groups)}${REDACTED}`;
    });
  }
  return out;
}

/** {@link redactSecrets} over every string (not the keys) of a JSON value; returns a copy. */
export function redactJson<T>(value: T, known: readonly string[] = []): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactSecrets(v, known);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * The secret values an environment holds: the value of every variable whose name says it is a secret
 * ({@link SECRET_NAME}), and the password of every value that is a URL with one (a database URL, a
 * proxy), raw and percent-decoded. Values shorter than {@link MIN_SECRET_LENGTH} are left out.
 */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (SECRET_NAME.test(name) && value.trim().length >= MIN_SECRET_LENGTH) out.add(value.trim());
    for (const password of urlPasswords(value)) out.add(password);
  }
  return [...out].filter((v) => v.length >= MIN_SECRET_LENGTH);
}

/** Passwords of `scheme://user:password@host` URLs in `text`, raw and decoded. */
export function urlPasswords(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s/]+)@/gi)) {
    const raw = match[1] ?? "";
    found.push(raw);
    try {
      found.push(decodeURIComponent(raw));
    } catch {
      // A malformed escape: the raw form is all there is.
    }
  }
  return found;
}

/**
 * Drops the run of token characters (letters, digits, `_-+/=.~`) that starts a tail cut from longer
 * text: the cut may have landed inside a secret, whose remaining part no rule can recognise. The
 * dropped part becomes `…`; a tail that starts with anything else is kept whole.
 */
export function dropCutFragment(tail: string): string {
  const word = /^[A-Za-z0-9_+/=.~-]+/.exec(tail);
  return word === null ? tail : `…${tail.slice(word[0].length)}`;
}

/**
 * A writer that passes every write through {@link redactSecrets} with `known`: for the streams where
 * a CLI shows agent output and errors. Each write is redacted alone, so callers write whole lines.
 */
export function redactingWriter<T extends { write(text: string): unknown }>(
  out: T,
  known: readonly string[],
): T {
  return { ...out, write: (text: string) => out.write(redactSecrets(text, known)) };
}
