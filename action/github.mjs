// The GitHub Actions side of the whilly action: inputs, the event, outputs, log commands and the OIDC
// token, with node's built-ins only (GitHub runs this file as it is, without an install step).
import { appendFileSync, readFileSync } from "node:fs";

/** A refusal the action reports as `::error::` and exit 1; `hint` says what to change. */
export class ActionError extends Error {
  /** @param {string} message @param {string} [hint] */
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

/**
 * An input as GitHub passes it: `INPUT_<NAME>` (upper case, spaces as `_`, hyphens kept), trimmed.
 * @param {Record<string, string | undefined>} env @param {string} name
 * @returns {string} the value, `""` when unset.
 */
export function input(env, name) {
  return (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

/**
 * A boolean input: `true`/`false` in any case (YAML 1.2 core schema, as GitHub's toolkit reads them).
 * @throws {ActionError} naming the input for any other value.
 */
export function booleanInput(env, name) {
  const value = input(env, name).toLowerCase();
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  throw new ActionError(
    `input ${name} must be true or false; got '${input(env, name)}'`,
    `e.g. ${name}: true`,
  );
}

/**
 * What the event asks for: the repository and issue number, or `skip` with the reason (an `issues`
 * event for another label). `issues: labeled` names its issue and label; `workflow_dispatch` takes
 * the `issue-number` input, or the dispatch's own `issue-number` / `issue_number` input.
 * @returns {{ repo: string, number: number } | { skip: string }}
 * @throws {ActionError} when no issue can be told.
 */
export function eventTarget(env, label) {
  const name = env.GITHUB_EVENT_NAME ?? "";
  const payload = readEvent(env);
  const repo = payload.repository?.full_name ?? env.GITHUB_REPOSITORY ?? "";
  if (!/^[^/\s]+\/[^/\s]+$/.test(repo)) {
    throw new ActionError("the repository is unknown (no GITHUB_REPOSITORY)", "run the action in a workflow");
  }
  if (name === "issues") {
    if (payload.action !== "labeled")
      return { skip: `an issues '${payload.action}' event; only 'labeled' triggers` };
    const added = payload.label?.name ?? "";
    if (added.toLowerCase() !== label.toLowerCase()) {
      return { skip: `the label added is '${added}', not the trigger label '${label}'` };
    }
    return { repo, number: issueNumber(String(payload.issue?.number ?? ""), "the event's issue") };
  }
  const given =
    input(env, "issue-number") || payload.inputs?.["issue-number"] || payload.inputs?.issue_number;
  if (!given) {
    throw new ActionError(
      `a '${name}' event names no issue`,
      "trigger on issues: labeled, or give the issue-number input (workflow_dispatch)",
    );
  }
  return { repo, number: issueNumber(String(given), "issue-number") };
}

function issueNumber(text, what) {
  const value = text.trim().replace(/^#/, "");
  if (!/^[1-9][0-9]*$/.test(value)) throw new ActionError(`${what} must be an issue number; got '${text}'`);
  return Number(value);
}

function readEvent(env) {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ActionError(`the event payload ${path} cannot be read: ${error.message}`);
  }
}

/**
 * Asks GitHub for the job's OIDC token with `audience`.
 * @param {number} timeoutMs
 * @throws {ActionError} when the job may not have one (`permissions: id-token: write` missing) or the
 *   request fails.
 */
export async function requestOidcToken(env, audience, timeoutMs) {
  const url = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const bearer = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!url || !bearer) {
    throw new ActionError(
      "oidc: true, but the job cannot request an OIDC token (no ACTIONS_ID_TOKEN_REQUEST_URL)",
      "give the job permissions: id-token: write",
    );
  }
  const target = new URL(url);
  target.searchParams.set("audience", audience);
  let reply;
  try {
    reply = await fetch(target, {
      headers: { authorization: `bearer ${bearer}`, accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ActionError(`the OIDC token request failed: ${error.message}`, "run the job again");
  }
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok || typeof body.value !== "string") {
    throw new ActionError(
      `the OIDC token request answered ${reply.status}`,
      "check permissions: id-token: write",
    );
  }
  return body.value;
}

/** Writes `name=value` lines to the file at `GITHUB_OUTPUT` (values are single-line here). */
export function setOutputs(env, outputs) {
  const file = env.GITHUB_OUTPUT;
  const lines = Object.entries(outputs).map(
    ([name, value]) => `${name}=${String(value).replace(/\r?\n/g, " ")}\n`,
  );
  if (file) appendFileSync(file, lines.join(""));
  else process.stdout.write(lines.map((line) => `output ${line}`).join(""));
}

/** Hides `value` in the rest of the job's log. */
export function mask(value) {
  if (value) process.stdout.write(`::add-mask::${value}\n`);
}
