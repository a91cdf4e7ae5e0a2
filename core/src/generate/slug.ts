/** A plan slug: lower-case letters, digits and inner `-`, e.g. `todo-app`; or one letter or digit. */
export const SLUG_PATTERN = /^(?:[a-z0-9][a-z0-9-]*[a-z0-9]|[a-z0-9])$/;

/** How many words of an idea a derived slug keeps. */
export const SLUG_WORDS = 8;

/**
 * Why `slug` is not a plan slug ({@link SLUG_PATTERN}), or `undefined` when it is one. Pure.
 */
export function slugProblem(slug: string): string | undefined {
  if (SLUG_PATTERN.test(slug)) return undefined;
  return `'${slug}' is not a slug: use lower-case letters, digits and '-' (not first or last), e.g. 'todo-app'`;
}

/**
 * The slug of an idea, as whilly 4.x derived it: lower case, every run of characters other than
 * `a-z0-9` made one `-`, trimmed of `-`, the first {@link SLUG_WORDS} words kept; `plan` when nothing
 * is left. Pure.
 */
export function slugOfIdea(idea: string): string {
  const words = idea
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  return words.length === 0 ? "plan" : words.slice(0, SLUG_WORDS).join("-");
}
