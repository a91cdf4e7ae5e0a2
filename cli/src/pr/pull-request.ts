import { type Gh, ghError, ghJson } from "../github/gh.js";
import type { PrText } from "./body.js";

/** The pull request `plan pr` opened or updated. */
export type PullRequest = {
  readonly number: number;
  readonly url: string;
  readonly draft: boolean;
  readonly base: string;
  /** `opened` by this run, or `updated`: the open one for the branch, its title and body rewritten. */
  readonly action: "opened" | "updated";
};

/** Options of {@link openOrUpdate}. */
export type OpenOptions = {
  readonly head: string;
  /** `--base`; `undefined` leaves it to GitHub (the repository's default branch) or the open PR's. */
  readonly base: string | undefined;
  readonly draft: boolean;
  /** `owner/repo` when known (a forge plan's issue); `undefined` lets gh take it from the clone's remotes. */
  readonly repo: string | undefined;
};

type Listed = { number: number; url: string; isDraft: boolean; baseRefName: string };

const FIELDS = "number,url,isDraft,baseRefName";

/**
 * Opens a pull request from `head`, or, when one is open for it already (`gh pr list --head`), updates
 * that one's title and body (and base, when `--base` names another), so running again never opens a
 * second. A create that loses a race to another run (gh: "already exists") updates the winner's.
 * @throws what {@link Gh.ok} throws.
 */
export async function openOrUpdate(gh: Gh, text: PrText, options: OpenOptions): Promise<PullRequest> {
  const repo = options.repo === undefined ? [] : ["--repo", options.repo];
  const existing = await findOpen(gh, options.head, repo);
  if (existing !== undefined) return update(gh, existing, text, options, repo);
  const args = ["pr", "create", "--head", options.head, "--title", text.title, "--body-file", "-", ...repo];
  if (options.base !== undefined) args.push("--base", options.base);
  if (options.draft) args.push("--draft");
  const created = await gh.run(args, { input: text.body });
  if (created.code !== 0) {
    const winner = /already exists/i.test(created.stderr)
      ? await findOpen(gh, options.head, repo)
      : undefined;
    if (winner === undefined) throw ghError(args, created);
    return update(gh, winner, text, options, repo);
  }
  const url = created.stdout.trim().split("\n").at(-1) ?? "";
  const view = ["pr", "view", url, "--json", FIELDS, ...repo];
  const viewed = ghJson<Listed>(view, await gh.ok(view));
  return {
    number: viewed.number,
    url: viewed.url,
    draft: viewed.isDraft,
    base: viewed.baseRefName,
    action: "opened",
  };
}

async function findOpen(gh: Gh, head: string, repo: readonly string[]): Promise<Listed | undefined> {
  const args = ["pr", "list", "--head", head, "--state", "open", "--json", FIELDS, "--limit", "10", ...repo];
  const listed = ghJson<Listed[]>(args, await gh.ok(args));
  return listed.sort((a, b) => a.number - b.number)[0];
}

async function update(
  gh: Gh,
  pr: Listed,
  text: PrText,
  options: OpenOptions,
  repo: readonly string[],
): Promise<PullRequest> {
  const args = ["pr", "edit", String(pr.number), "--title", text.title, "--body-file", "-", ...repo];
  const base = options.base ?? pr.baseRefName;
  if (base !== pr.baseRefName) args.push("--base", base);
  await gh.ok(args, { input: text.body });
  return { number: pr.number, url: pr.url, draft: pr.isDraft, base, action: "updated" };
}
