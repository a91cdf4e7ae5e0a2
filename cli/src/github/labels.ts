import { type Gh, ghError, ghJson } from "./gh.js";

/** The labels whilly moves a GitHub issue through: asked for, being worked on, in review. */
export const WHILLY_LABELS = {
  pending: { name: "whilly-pending", color: "fbca04", description: "whilly: make a plan of this issue" },
  inProgress: { name: "whilly-in-progress", color: "1d76db", description: "whilly: workers are on it" },
  inReview: { name: "whilly-in-review", color: "0e8a16", description: "whilly: a pull request is open" },
} as const;

/** A label to make when the repository lacks it. */
export type LabelSpec = { readonly name: string; readonly color: string; readonly description: string };

/** An issue reference `owner/repo/N`, as forge plans record it (`github_issue_ref`). */
export type IssueRef = { readonly repo: string; readonly number: number };

/** Parses `owner/repo/N`; `undefined` for anything else. */
export function parseIssueRef(text: string): IssueRef | undefined {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/([1-9][0-9]*)$/.exec(text.trim());
  if (!match) return undefined;
  return { repo: `${match[1]}/${match[2]}`, number: Number(match[3]) };
}

/**
 * The names of the repository's labels (`gh label list`), lower case as GitHub compares them.
 * @throws what {@link Gh.ok} throws.
 */
export async function labelNames(gh: Gh, repo: string): Promise<Set<string>> {
  const args = ["label", "list", "--repo", repo, "--json", "name", "--limit", "1000"];
  const labels = ghJson<{ name: string }[]>(args, await gh.ok(args));
  return new Set(labels.map((l) => l.name.toLowerCase()));
}

/**
 * Makes each label the repository lacks (`gh issue edit --add-label` fails on a missing one). Another
 * process making it meanwhile ("already exists") counts as made; an existing label is never changed.
 * @returns the names it made.
 * @throws what {@link Gh.ok} throws.
 */
export async function ensureLabels(gh: Gh, repo: string, specs: readonly LabelSpec[]): Promise<string[]> {
  const existing = await labelNames(gh, repo);
  const made: string[] = [];
  for (const spec of specs) {
    if (existing.has(spec.name.toLowerCase())) continue;
    const args = ["label", "create", spec.name, "--repo", repo];
    const result = await gh.run([...args, "--color", spec.color, "--description", spec.description]);
    if (result.code === 0) made.push(spec.name);
    else if (!/already exists/i.test(result.stderr)) throw ghError(args, result);
  }
  return made;
}
