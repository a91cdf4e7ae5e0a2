import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { endAttemptProcesses } from "./end-processes.js";
import { identify, isRunning, type ProcessId, procAvailable } from "./proc-table.js";

/**
 * What is kept on disk about one running attempt, so that the next runner on the same state directory can
 * end what it left behind after a `kill -9`: its id, its working directory, and pid + start-time pairs
 * (the runner that owns it, the agent, and the agent's tree as last seen). Nothing else: no prompt, no
 * environment. One JSON file per attempt in `<stateDir>/attempts/`.
 */
export type AttemptRecord = {
  readonly attemptId: string;
  readonly workdir: string;
  /** The runner process (`whilly run` or `whilly-worker`) the attempt belongs to. */
  readonly owner: ProcessId;
  readonly processes: readonly ProcessId[];
};

/** The directory of the records under a state directory. */
export function recordsDir(stateDir: string): string {
  return join(stateDir, "attempts");
}

/** Keeps one attempt's record up to date while it runs. Every method is synchronous and never throws. */
export class AttemptRecordFile {
  private readonly processes = new Map<number, ProcessId>();
  private readonly file: string;
  private readonly owner: ProcessId | undefined = identify(process.pid);

  constructor(
    private readonly stateDir: string,
    readonly attemptId: string,
    private readonly workdir: string,
  ) {
    this.file = join(recordsDir(stateDir), `${attemptId}.json`);
  }

  /** Adds processes of the attempt and rewrites the record (atomically: a reader never sees half a file). */
  add(ids: Iterable<ProcessId>): void {
    for (const id of ids) this.processes.set(id.pid, id);
    if (this.owner === undefined) return;
    const record: AttemptRecord = {
      attemptId: this.attemptId,
      workdir: this.workdir,
      owner: this.owner,
      processes: [...this.processes.values()],
    };
    try {
      mkdirSync(recordsDir(this.stateDir), { recursive: true });
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(toJson(record))}\n`);
      renameSync(temporary, this.file);
    } catch {
      // A state directory that cannot be written loses only the clean-up after a kill -9.
    }
  }

  /** Removes the record once the attempt's processes are all gone. */
  remove(): void {
    rmSync(this.file, { force: true });
  }
}

/** What {@link endOrphanedAttempts} did. */
export type OrphanReport = {
  /** The ids of the attempts whose runner was gone. */
  readonly attempts: readonly string[];
  /** How many of their processes were still running and were ended. */
  readonly ended: number;
};

/**
 * Ends what attempts of runners that are gone left running, and removes their records: for each record
 * whose owner (pid + start time) no longer runs, every process carrying the attempt's mark, the recorded
 * processes whose start time still matches, and their descendants (see `endAttemptProcesses`). Records of
 * live runners are left alone. Linux only; elsewhere nothing is recorded, so nothing is found.
 */
export function endOrphanedAttempts(stateDir: string): OrphanReport {
  const attempts: string[] = [];
  let ended = 0;
  if (!procAvailable()) return { attempts, ended };
  let names: string[];
  try {
    names = readdirSync(recordsDir(stateDir));
  } catch {
    return { attempts, ended };
  }
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const file = join(recordsDir(stateDir), name);
    const record = readRecord(file);
    if (record !== undefined && isRunning(record.owner)) continue;
    if (record !== undefined) {
      ended += endAttemptProcesses({ attemptId: record.attemptId, known: record.processes });
      attempts.push(record.attemptId);
    }
    rmSync(file, { force: true });
  }
  return { attempts, ended };
}

type RecordJson = {
  attempt_id: string;
  workdir: string;
  owner: { pid: number; start_time: number };
  processes: { pid: number; start_time: number }[];
};

function toJson(record: AttemptRecord): RecordJson {
  const pair = (p: ProcessId) => ({ pid: p.pid, start_time: p.startTime });
  return {
    attempt_id: record.attemptId,
    workdir: record.workdir,
    owner: pair(record.owner),
    processes: record.processes.map(pair),
  };
}

/** A record as written by {@link AttemptRecordFile}; `undefined` for a file that is not one. */
function readRecord(file: string): AttemptRecord | undefined {
  try {
    const json = JSON.parse(readFileSync(file, "utf8")) as Partial<RecordJson>;
    const owner = pairOf(json.owner);
    if (typeof json.attempt_id !== "string" || json.attempt_id === "" || owner === undefined)
      return undefined;
    const processes = Array.isArray(json.processes) ? json.processes.map(pairOf) : [];
    return {
      attemptId: json.attempt_id,
      workdir: typeof json.workdir === "string" ? json.workdir : "",
      owner,
      processes: processes.filter((p): p is ProcessId => p !== undefined),
    };
  } catch {
    return undefined;
  }
}

function pairOf(value: unknown): ProcessId | undefined {
  const v = value as { pid?: unknown; start_time?: unknown } | null | undefined;
  if (typeof v?.pid !== "number" || typeof v.start_time !== "number") return undefined;
  if (!Number.isInteger(v.pid) || v.pid <= 1 || !Number.isInteger(v.start_time)) return undefined;
  return { pid: v.pid, startTime: v.start_time };
}
