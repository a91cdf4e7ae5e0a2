import { InvalidInput, PlanInvalid, type PlanIssue } from "../errors.js";
import type { JsonObject, PlanSpec } from "../model.js";
import { formatPath, type Segment } from "../plan/issues.js";
import { isPlainObject } from "../plan/json-values.js";
import { parsePlanObject } from "../plan/parse-plan.js";
import { show } from "../plan/text.js";
import { resolveDependencies } from "./dependencies.js";
import { type Entry, readEntries } from "./entries.js";
import { Problems } from "./problems.js";
import type { StatusMapping } from "./statuses.js";
import { whillyTask } from "./tasks.js";

/** What {@link convertTaskmaster} needs besides the file. */
export type TaskmasterOptions = {
  /** Names the file in messages and in the plan's `origin.reference`. */
  readonly source: string;
  /** The tag of a tagged file to import; `master` when absent. */
  readonly tag?: string | undefined;
  /** The plan id to store the plan under, in place of the derived one. */
  readonly planId?: string | undefined;
  /** The project's name when the file has none (the CLI passes the directory holding `.taskmaster/`). */
  readonly projectName?: string | undefined;
};

/** A Taskmaster file converted into a whilly plan. */
export type TaskmasterImport = {
  readonly plan: PlanSpec;
  /** The tag imported (`master` for a legacy file). */
  readonly tag: string;
  /** `legacy` (`{"tasks": [...]}`) or `tagged` (`{"master": {"tasks": [...]}, ...}`). */
  readonly layout: "legacy" | "tagged";
  /** The file's other tags, not imported. */
  readonly otherTags: readonly string[];
  /** One per Taskmaster status whose meaning whilly's status changes, in file order. */
  readonly statusMappings: readonly StatusMapping[];
};

export const DEFAULT_TAG = "master";

/**
 * Converts a parsed Taskmaster `tasks.json` (legacy or tagged; docs/taskmaster.md) into a whilly plan,
 * validated as `whilly plan import` validates a plan file.
 * @throws {InvalidInput} (field `tag`) when the tag is not in the file, listing its tags.
 * @throws {PlanInvalid} listing every problem, each message starting with the path in the file.
 */
export function convertTaskmaster(value: unknown, options: TaskmasterOptions): TaskmasterImport {
  const { source } = options;
  const problems = new Problems();
  if (!isPlainObject(value)) {
    problems.add([], undefined, `a Taskmaster tasks.json is a JSON object; got ${show(value)}`);
    throw new PlanInvalid(source, problems.items, { hint: HINT });
  }
  const picked = pickTag(value, options);
  const { container, path, tag } = picked;
  const tasks = container.tasks;
  if (!Array.isArray(tasks)) {
    problems.add([...path, "tasks"], undefined, `must be a list of tasks; got ${show(tasks)}`);
    throw new PlanInvalid(source, problems.items, { hint: HINT });
  }
  const entries = readEntries(tasks, [...path, "tasks"], problems);
  checkUniqueIds(entries, problems);
  const scope = picked.layout === "legacy" ? "the file" : `tag '${tag}'`;
  const dependencies = resolveDependencies(entries, scope, problems);
  const converted = entries.map((entry) => whillyTask(entry, dependencies.get(entry.id) ?? [], problems));
  if (problems.items.length > 0) throw new PlanInvalid(source, problems.items, { hint: HINT });

  const document = planDocument(container, converted, picked, options);
  let plan: PlanSpec;
  try {
    plan = parsePlanObject(document, source);
  } catch (error) {
    if (!(error instanceof PlanInvalid)) throw error;
    throw new PlanInvalid(
      source,
      error.issues.map((issue) => inFile(issue, entries, path)),
      { hint: HINT },
    );
  }
  return {
    plan,
    tag,
    layout: picked.layout,
    otherTags: picked.otherTags,
    statusMappings: statusMappings(entries),
  };
}

const HINT = "fix the fields named above; docs/taskmaster.md says how whilly reads each Taskmaster field";

type Picked = {
  readonly container: Record<string, unknown>;
  readonly path: readonly Segment[];
  readonly tag: string;
  readonly layout: "legacy" | "tagged";
  readonly otherTags: readonly string[];
};

/** The legacy file itself, or the tag's object of a tagged file. */
function pickTag(file: Record<string, unknown>, options: TaskmasterOptions): Picked {
  const tag = options.tag ?? DEFAULT_TAG;
  if (isLegacy(file)) {
    if (tag !== DEFAULT_TAG) {
      throw new InvalidInput(
        "tag",
        `${options.source} is a legacy Taskmaster file (one list of tasks, Taskmaster's '${DEFAULT_TAG}' tag); it has no tag '${tag}'`,
        { hint: `drop --tag, or give --tag ${DEFAULT_TAG}` },
      );
    }
    return { container: file, path: [], tag, layout: "legacy", otherTags: [] };
  }
  const tags = Object.keys(file).filter(
    (key) => isPlainObject(file[key]) && "tasks" in (file[key] as object),
  );
  if (tags.length === 0) {
    const problems = new Problems();
    problems.add(
      [],
      undefined,
      `not a Taskmaster tasks.json: expected {"tasks": [...]} (legacy) or {"${DEFAULT_TAG}": {"tasks": [...]}} (tagged)`,
    );
    throw new PlanInvalid(options.source, problems.items, { hint: HINT });
  }
  const container = file[tag];
  if (!tags.includes(tag) || !isPlainObject(container)) {
    throw new InvalidInput(
      "tag",
      `${options.source} has no tag ${show(tag)}; its tags: ${tags.map((t) => show(t)).join(", ")}`,
      { hint: `name one with --tag, e.g. --tag ${tags[0]}` },
    );
  }
  return { container, path: [tag], tag, layout: "tagged", otherTags: tags.filter((t) => t !== tag) };
}

/** `{"tasks": [...]}`; a tagged file's tag named `tasks` holds an object with a `tasks` list instead. */
function isLegacy(file: Record<string, unknown>): boolean {
  const tasks = file.tasks;
  return tasks !== undefined && !(isPlainObject(tasks) && "tasks" in tasks);
}

function checkUniqueIds(entries: readonly Entry[], problems: Problems): void {
  const first = new Map<string, Entry>();
  for (const entry of entries) {
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, entry);
    else {
      problems.add(
        [...entry.path, "id"],
        entry.label,
        `the id is taken by ${formatPath(earlier.path)}; give one of them another id`,
      );
    }
  }
}

/**
 * The whilly plan file: the container's whilly fields (`verify`, `setup`, ...) used as they are and
 * its other fields (`metadata`, a legacy file's `meta`) kept; the name from the file (`project`, a
 * legacy `meta.projectName`), else `options.projectName`; the plan id from `options.planId`, the
 * file's `plan_id`, else the project's slug (and the tag's, for a tag other than `master`);
 * `origin` saying where it came from.
 */
function planDocument(
  container: Record<string, unknown>,
  tasks: readonly JsonObject[],
  picked: Picked,
  options: TaskmasterOptions,
): Record<string, unknown> {
  const meta = container.meta;
  const own = typeof container.project === "string" ? container.project.trim() : "";
  const metaName = isPlainObject(meta) && typeof meta.projectName === "string" ? meta.projectName.trim() : "";
  const name = own || metaName || options.projectName?.trim() || "taskmaster";
  const project = picked.tag === DEFAULT_TAG ? name : `${name} (${picked.tag})`;
  const derivedId =
    picked.tag === DEFAULT_TAG
      ? slug(name, "taskmaster")
      : `${slug(name, "taskmaster")}-${slug(picked.tag, "tag")}`;
  const reference = picked.layout === "legacy" ? options.source : `${options.source}#${picked.tag}`;
  const kept = Object.fromEntries(Object.entries(container).filter(([key]) => key !== "tasks"));
  return {
    origin: { kind: "taskmaster", reference, title: project },
    project,
    ...kept,
    ...("plan_id" in container && options.planId === undefined
      ? {}
      : { plan_id: options.planId ?? derivedId }),
    tasks,
  };
}

/** Lower case, every run of other characters than a-z and 0-9 as one `-`; `fallback` when nothing is left. */
function slug(text: string, fallback: string): string {
  const made = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return made === "" ? fallback : made;
}

/**
 * A problem the plan parser found in the converted plan, pointed back into the file: `tasks[4]`
 * becomes the task's path there (`master.tasks[2].subtasks[0]`), a top-level field the container's.
 */
function inFile(issue: PlanIssue, entries: readonly Entry[], container: readonly Segment[]): PlanIssue {
  const where = (index: string) => {
    const entry = entries[Number(index)];
    return entry === undefined ? `tasks[${index}]` : formatPath(entry.path);
  };
  const message = issue.message.replace(/\btasks\[(\d+)\]/g, (_, index: string) => where(index));
  const match = /^tasks\[(\d+)\](.*)$/.exec(issue.path);
  if (match) return { ...issue, path: `${where(match[1] ?? "")}${match[2] ?? ""}`, message };
  const prefix = formatPath(container);
  const path = prefix === "" || issue.path === "" ? issue.path || prefix : `${prefix}.${issue.path}`;
  return { ...issue, path, message };
}

function statusMappings(entries: readonly Entry[]): StatusMapping[] {
  const byStatus = new Map<string, { to: StatusMapping["to"]; why: string; taskIds: string[] }>();
  for (const entry of entries) {
    if (entry.mapped === undefined) continue;
    const found = byStatus.get(entry.mapped.from);
    if (found) found.taskIds.push(entry.id);
    else byStatus.set(entry.mapped.from, { to: entry.status, why: entry.mapped.why, taskIds: [entry.id] });
  }
  return [...byStatus].map(([from, mapping]) => ({ from, ...mapping }));
}
