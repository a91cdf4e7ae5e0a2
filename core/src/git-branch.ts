/** Characters git never takes in a ref name (`git check-ref-format`): controls, space, `~^:?*[\`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const FORBIDDEN = /[\u0000-\u0020\u007f~^:?*[\\]/;

/**
 * Why `name` is no branch name git takes as `refs/heads/<name>` (`git check-ref-format --branch`), or
 * `undefined` when it is one. Stricter than git where git's shorthands would name another ref or an
 * option: no leading `-`, no `@`, no `HEAD`. A name that passes is safe as a `git fetch` or `git push`
 * refspec side after `refs/heads/`: it holds no `:`, glob or `..`.
 */
export function gitBranchNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name.startsWith("-")) return "starts with '-', which git reads as an option";
  if (name === "HEAD" || name === "@") return `is '${name}', which git reads as the checked-out commit`;
  if (name.includes("@{")) return "holds '@{', git's reflog shorthand";
  const bad = FORBIDDEN.exec(name);
  if (bad) return `holds ${JSON.stringify(bad[0])}, which git does not take in a branch name`;
  if (name.includes("..")) return "holds '..', which git reads as a range";
  if (name.endsWith(".")) return "ends with '.'";
  for (const part of name.split("/")) {
    if (part === "") return "has an empty path component (a leading, trailing or doubled '/')";
    if (part.startsWith(".")) return `has a path component starting with '.' (${part})`;
    if (part.endsWith(".lock")) return `has a path component ending with '.lock' (${part})`;
  }
  return undefined;
}
