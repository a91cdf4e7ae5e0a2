import type { GithubIssueRef, JsonObject, OriginKind, PlanOrigin } from "../model.js";
import { fieldName } from "./issues.js";
import { isPlainObject, type Report } from "./json-values.js";
import { show } from "./text.js";

/** Where a plan can come from: an idea (`whilly init`), a PRD file, a GitHub issue, a Taskmaster file. */
export const ORIGIN_KINDS = ["idea", "prd", "github_issue", "taskmaster"] as const;

/** The keys an `origin` object may hold. */
export const ORIGIN_FIELDS = ["kind", "reference", "url", "title"] as const;

/** The longest `origin.reference`, `origin.url` or `origin.title` (UTF-16 code units). */
export const MAX_ORIGIN_TEXT = 4096;

// GitHub's own rules: an owner is 1-39 letters, digits and inner hyphens; a repository name is letters,
// digits, `.`, `_` and `-`, up to 100 characters, and neither `.` nor `..`.
const ISSUE_REF = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})\/(\d{1,15})$/;

/**
 * Reads `owner/repo/N` (a GitHub issue) into its canonical form: owner and repository in lower case
 * (GitHub names ignore case, so `Acme/Widgets/7` and `acme/widgets/7` are one issue) and the number
 * without leading zeros.
 * @returns `undefined` when `text` is not such a reference.
 */
export function parseGithubIssueRef(text: string): GithubIssueRef | undefined {
  const match = ISSUE_REF.exec(text);
  if (!match) return undefined;
  const [, owner = "", repo = "", digits = ""] = match;
  const number = Number(digits);
  if (repo === "." || repo === ".." || !Number.isSafeInteger(number) || number < 1) return undefined;
  const canonical = { owner: owner.toLowerCase(), repo: repo.toLowerCase(), number };
  return { ...canonical, ref: `${canonical.owner}/${canonical.repo}/${number}` };
}

/** The message for a value that is not an issue reference; `subject` names the field. */
export function issueRefProblem(subject: string, value: unknown): string {
  return `${subject} must name a GitHub issue as owner/repo/N, e.g. "acme/widgets/42"; got ${show(value)}`;
}

/**
 * The plan file's `github_issue_ref`: the issue the plan was made from, canonical (see
 * {@link parseGithubIssueRef}); absent or `null` is `undefined`.
 * @returns `null` when the value was reported as bad.
 */
export function readGithubIssueRef(value: unknown, report: Report): string | undefined | null {
  if (value === undefined || value === null) return undefined;
  const parsed = typeof value === "string" ? parseGithubIssueRef(value) : undefined;
  if (parsed) return parsed.ref;
  report(["github_issue_ref"], issueRefProblem("'github_issue_ref'", value));
  return null;
}

/**
 * The plan file's `origin`: `{kind, reference, url?, title?}` (see {@link ORIGIN_KINDS}); the
 * reference of a `github_issue` origin is an issue reference, made canonical. Absent or `null` is
 * `undefined`.
 * @returns `null` when the value was reported as bad.
 */
export function readOrigin(value: unknown, report: Report): PlanOrigin | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    report(
      ["origin"],
      `'origin' must be an object like {"kind": "github_issue", "reference": "acme/widgets/42"}; got ${show(value)}`,
    );
    return null;
  }
  let ok = true;
  const bad = (key: string, message: string) => {
    ok = false;
    report(["origin", key], `${fieldName(["origin", key])} ${message}`);
  };
  for (const key of Object.keys(value)) {
    if (!(ORIGIN_FIELDS as readonly string[]).includes(key)) {
      bad(key, `is not an origin field; origin holds ${ORIGIN_FIELDS.join(", ")}`);
    }
  }
  const kind = value.kind;
  if (!(ORIGIN_KINDS as readonly unknown[]).includes(kind)) {
    bad("kind", `must be one of ${ORIGIN_KINDS.join(", ")}; got ${show(kind)}`);
  }
  let reference = readText(value.reference, true, (message) => bad("reference", message));
  if (reference !== undefined && kind === "github_issue") {
    const parsed = parseGithubIssueRef(reference);
    if (parsed) reference = parsed.ref;
    else bad("reference", issueRefProblem("of a github_issue origin", reference));
  }
  const url = readText(value.url, false, (message) => bad("url", message));
  if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) {
    bad("url", `must be an http(s) URL, e.g. "https://github.com/acme/widgets/issues/42"; got ${show(url)}`);
  }
  const title = readText(value.title, false, (message) => bad("title", message));
  if (!ok || reference === undefined) return null;
  return {
    kind: kind as OriginKind,
    reference,
    ...(url === undefined ? {} : { url }),
    ...(title === undefined ? {} : { title }),
  };
}

/** A string of at most {@link MAX_ORIGIN_TEXT} units, non-blank when `required` (text Postgres cannot store is `scanJson`'s to report). */
function readText(value: unknown, required: boolean, bad: (message: string) => void): string | undefined {
  if (value === undefined || value === null) {
    if (required) bad("is required: what the plan was made from (a slug, a file, owner/repo/N)");
    return undefined;
  }
  if (typeof value !== "string" || (required && value.trim() === "")) {
    bad(`must be a${required ? " non-blank" : ""} string; got ${show(value)}`);
    return undefined;
  }
  if (value.length > MAX_ORIGIN_TEXT) {
    bad(`must be at most ${MAX_ORIGIN_TEXT} characters long; got ${value.length}`);
    return undefined;
  }
  return value;
}

/**
 * The issue reference a plan is known by: its `github_issue_ref`, else the reference of a
 * `github_issue` origin. Reports a `github_issue_ref` that names another issue than the origin.
 */
export function planIssueRef(
  ref: string | undefined,
  origin: PlanOrigin | undefined,
  report: Report,
): string | undefined {
  const fromOrigin = origin?.kind === "github_issue" ? origin.reference : undefined;
  if (ref !== undefined && fromOrigin !== undefined && ref !== fromOrigin) {
    report(
      ["github_issue_ref"],
      `'github_issue_ref' (${show(ref)}) and the github_issue origin's reference (${show(fromOrigin)}) name different issues; make them the same`,
    );
  }
  return ref ?? fromOrigin;
}

/** An origin as the plan file (and the store's JSON column) holds it: `url` and `title` only when set. */
export function originToJson(origin: PlanOrigin): JsonObject {
  return {
    kind: origin.kind,
    reference: origin.reference,
    ...(origin.url === undefined ? {} : { url: origin.url }),
    ...(origin.title === undefined ? {} : { title: origin.title }),
  };
}
