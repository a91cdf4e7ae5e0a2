import { readdirSync, readFileSync } from "node:fs";

/**
 * One process as Linux names it for good: its pid and its start time (`/proc/<pid>/stat` field 22, clock
 * ticks after boot). A pid is reused once its process is gone; the pair never is, so a kill aimed at a
 * pair cannot hit a newcomer.
 */
export type ProcessId = { readonly pid: number; readonly startTime: number };

/** One row of the process table. */
export type ProcRow = ProcessId & {
  readonly ppid: number;
  /** `R`, `S`, `T` (stopped), `Z` (zombie: exited, not yet reaped), ... */
  readonly state: string;
};

/** True where `/proc` gives what this module reads (Linux). Elsewhere the runner falls back to group kills. */
export function procAvailable(): boolean {
  if (process.platform !== "linux") return false;
  return readRow(process.pid) !== undefined;
}

/**
 * Reads `/proc/<pid>/stat`.
 * @returns `undefined` when the process is gone (or `/proc` is not there).
 */
export function readRow(pid: number): ProcRow | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')'; the fields after the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const state = rest[0] ?? "?";
  const ppid = Number(rest[1]);
  const startTime = Number(rest[19]);
  if (!Number.isInteger(ppid) || !Number.isInteger(startTime)) return undefined;
  return { pid, ppid, state, startTime };
}

/** The process's {@link ProcessId}, or `undefined` when it is gone. */
export function identify(pid: number): ProcessId | undefined {
  const row = readRow(pid);
  return row === undefined ? undefined : { pid, startTime: row.startTime };
}

/** True when the very process `id` names still runs (not a zombie, not a newcomer with its pid). */
export function isRunning(id: ProcessId): boolean {
  const row = readRow(id.pid);
  return row !== undefined && row.startTime === id.startTime && !exited(row);
}

/** A zombie (`Z`) or dead (`X`) process has exited; only its table entry is left. */
function exited(row: ProcRow): boolean {
  return row.state === "Z" || row.state === "X";
}

/** Every process this user can see, zombies left out. */
export function readTable(): ProcRow[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const rows: ProcRow[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const row = readRow(Number(name));
    if (row !== undefined && !exited(row)) rows.push(row);
  }
  return rows;
}

/**
 * True when the process's environment holds `name=value` exactly. A process of another user (unreadable
 * `environ`) or one that is gone counts as not marked.
 */
export function carriesMark(pid: number, name: string, value: string): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const wanted = Buffer.from(`${name}=${value}\0`);
  if (environ.subarray(0, wanted.length).equals(wanted)) return true;
  return environ.includes(Buffer.concat([Buffer.from([0]), wanted]));
}

/**
 * The live descendants of `roots` in `table` (children, their children, ...), the roots not included.
 * A process whose parent exited is re-parented (to PID 1 or a subreaper) and no longer found this way.
 */
export function descendantsOf(table: readonly ProcRow[], roots: Iterable<number>): ProcRow[] {
  const children = new Map<number, ProcRow[]>();
  for (const row of table) {
    const list = children.get(row.ppid);
    if (list) list.push(row);
    else children.set(row.ppid, [row]);
  }
  const found: ProcRow[] = [];
  const seen = new Set<number>(roots);
  const queue = [...seen];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}
