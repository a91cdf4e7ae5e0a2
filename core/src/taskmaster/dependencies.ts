import { show } from "../plan/text.js";
import type { Entry } from "./entries.js";
import type { Problems } from "./problems.js";

const PLAIN = /^\d+$/;

/**
 * Every entry's whilly dependencies (docs/taskmaster.md, "Dependencies"):
 * - a reference in a task names a task (`3`) or a subtask (`"3.2"`);
 * - a plain number in a subtask names a subtask of the same parent, as Taskmaster reads it, and a
 *   task of that number when the parent has no such subtask; `"3.2"` names that subtask;
 * - a task with subtasks depends on each of them (it is done only when its parts are), and each
 *   subtask waits for what its parent waits for (outside the parent's own subtasks).
 * Repeated references are merged. A reference to nothing, to itself, or from a subtask to its own
 * parent (which waits for it) is reported at its path.
 * @returns whilly ids by entry id, in file order, each list without repeats.
 */
export function resolveDependencies(
  entries: readonly Entry[],
  scope: string,
  problems: Problems,
): Map<string, string[]> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const own = new Map(entries.map((entry) => [entry.id, ownDependencies(entry, byId, scope, problems)]));
  const all = new Map<string, string[]>();
  for (const entry of entries) {
    const list = [...(own.get(entry.id) ?? [])];
    const add = (id: string) => {
      if (id !== entry.id && !list.includes(id)) list.push(id);
    };
    for (const child of entry.children) add(child.id);
    const parent = entry.parent;
    if (parent !== undefined) {
      const siblings = new Set(parent.children.map((child) => child.id));
      for (const id of own.get(parent.id) ?? []) if (!siblings.has(id)) add(id);
    }
    all.set(entry.id, list);
  }
  return all;
}

/** The entries `entry`'s own references name, each once; the bad ones reported. */
function ownDependencies(
  entry: Entry,
  byId: ReadonlyMap<string, Entry>,
  scope: string,
  problems: Problems,
): string[] {
  const resolved: string[] = [];
  for (const { ref, index } of entry.references) {
    const target = resolve(entry, ref, byId);
    const at = [...entry.path, "dependencies", index];
    if (target === undefined) {
      problems.add(
        at,
        entry.label,
        `depends on ${show(ref)}, which is no task or subtask in ${scope}; remove the reference or add the task (task-master fix-dependencies removes every reference to a missing task)`,
      );
    } else if (target === entry.id) {
      problems.add(at, entry.label, "depends on itself; remove the reference");
    } else if (target === entry.parent?.id) {
      problems.add(
        at,
        entry.label,
        `depends on its own parent task ${show(target)}, which is done only after its subtasks; remove the reference`,
      );
    } else if (!resolved.includes(target)) {
      resolved.push(target);
    }
  }
  return resolved;
}

/** The whilly id `ref` names from `entry`, or `undefined` when it names nothing. */
function resolve(entry: Entry, ref: string, byId: ReadonlyMap<string, Entry>): string | undefined {
  const parent = entry.parent;
  if (parent !== undefined && PLAIN.test(ref)) {
    const sibling = `${parent.id}.${ref}`;
    if (byId.has(sibling)) return sibling;
  }
  return byId.has(ref) ? ref : undefined;
}
