import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { endAttemptProcesses, findAttemptProcesses } from "./end-processes.js";
import { identify, type ProcessId, procAvailable } from "./proc-table.js";

/** Options of {@link runProcessGroup}. */
export type ProcessGroupOptions = {
  /** `[command, ...args]`; run directly, no shell. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child; nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Kill the group after this long, ms. */
  readonly timeoutMs: number;
  /**
   * Kill the group when stdout stays silent this long, ms (the result then has `stalled`); the clock
   * starts at spawn and restarts with every chunk on stdout. None when undefined.
   */
  readonly stallTimeoutMs?: number | undefined;
  /** Output on stderr restarts the stall clock too. */
  readonly stallOnStderr?: boolean | undefined;
  /** Time between SIGTERM and SIGKILL, ms. */
  readonly killGraceMs: number;
  /** Kills the group when aborted (worker shutdown). */
  readonly signal?: AbortSignal | undefined;
  /** Called with output as it arrives (decoded UTF-8). */
  readonly onOutput?: ((chunk: string, stream: "stdout" | "stderr") => void) | undefined;
  /** Keep at most this much of each stream, bytes; the start is dropped first. Default 32 MiB. */
  readonly maxOutputBytes?: number | undefined;
  /**
   * The attempt's id, which `env` carries as `WHILLY_ATTEMPT_ID`. With it (on Linux), every process
   * carrying the mark, and the agent's tree, is ended when the run ends, however it ends.
   */
  readonly attemptId?: string | undefined;
  /** Called with processes of the attempt as they become known (the agent, then its tree), to record them. */
  readonly onProcesses?: ((ids: readonly ProcessId[]) => void) | undefined;
};

/** What happened to the process. */
export type ProcessGroupResult = {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Killed because stdout was silent for `stallTimeoutMs`. */
  readonly stalled?: boolean;
  readonly aborted: boolean;
  readonly spawnError?: { readonly code: string | undefined; readonly message: string };
  /** Wall time from spawn to the streams closing, ms. */
  readonly wallMs: number;
};

/** The attempts running now, by id, for {@link endRunningAttempts}. */
const activeAttempts = new Map<string, () => { attemptId: string; known: ProcessId[] }>();

/** How long to wait for the pipes to close once the whole group was sent SIGKILL, ms. */
const CLOSE_AFTER_KILL_MS = 2000;

/**
 * Runs a command in its own process group (`detached`), stdin closed, stdout and stderr read to their end.
 * On timeout or abort the whole group gets SIGTERM, then SIGKILL after `killGraceMs`, so the agent's
 * own children (shells, test runners, servers) die with it. When the command exits by itself, what it left
 * running in its group is ended the same way, because a leftover holding the pipes would keep the
 * attempt open forever. A process that made itself a new session escapes the group; with `attemptId` on
 * Linux it is found by its mark and ended too (see `endAttemptProcesses`), before this resolves.
 * Never rejects: a command that cannot start comes back with `spawnError`.
 */
export function runProcessGroup(options: ProcessGroupOptions): Promise<ProcessGroupResult> {
  const started = performance.now();
  const wall = () => Math.round(performance.now() - started);
  const [command, ...args] = options.argv;
  if (command === undefined) {
    return Promise.resolve(failedToStart("EINVAL", "empty command line", wall()));
  }
  if (options.signal?.aborted) {
    return Promise.resolve({ ...notRun(wall()), aborted: true });
  }

  return new Promise((resolve) => {
    const limit = options.maxOutputBytes ?? 32 * 1024 * 1024;
    const out = new Capture(limit);
    const err = new Capture(limit);
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let timedOut = false;
    let stalled = false;
    let stallTimer: NodeJS.Timeout | undefined;
    let aborted = false;
    let terminating = false;
    let finished = false;
    const timers: NodeJS.Timeout[] = [];

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // Some refusals are thrown rather than emitted (E2BIG: an argument or the environment too long).
      const { code, message } = error as NodeJS.ErrnoException;
      resolve(failedToStart(code, message, wall()));
      return;
    }
    const pid = child.pid;
    const tracked = new Map<number, ProcessId>();
    const track = (ids: readonly ProcessId[]) => {
      const fresh = ids.filter((id) => tracked.get(id.pid)?.startTime !== id.startTime);
      if (fresh.length === 0) return;
      for (const id of fresh) tracked.set(id.pid, id);
      options.onProcesses?.(fresh);
    };
    const contained = options.attemptId !== undefined && procAvailable();
    const attempt = () => ({ attemptId: options.attemptId ?? "", known: [...tracked.values()] });
    /** Ends what the attempt left outside its group; synchronous, so it runs before anything else. */
    const sweep = () => {
      if (contained) endAttemptProcesses(attempt());
    };
    if (pid !== undefined && contained) {
      const self = identify(pid);
      if (self) track([self]);
      activeAttempts.set(options.attemptId ?? "", attempt);
    }

    const killGroup = (sig: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const terminate = () => {
      if (terminating) return;
      terminating = true;
      // Note the tree while its links still stand: once the agent exits, its children are re-parented.
      if (contained) track(findAttemptProcesses(attempt()));
      killGroup("SIGTERM");
      timers.push(
        setTimeout(() => {
          killGroup("SIGKILL");
          // Pipes inherited by something outside the group would hold 'close' back; stop waiting.
          timers.push(setTimeout(() => finish(), CLOSE_AFTER_KILL_MS));
        }, options.killGraceMs),
      );
    };
    const finish = (spawnError?: ProcessGroupResult["spawnError"]) => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      clearTimeout(stallTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (terminating) killGroup("SIGKILL");
      sweep();
      activeAttempts.delete(options.attemptId ?? "");
      child.stdout?.destroy();
      child.stderr?.destroy();
      const base = {
        exitCode,
        signal: exitSignal,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        stalled,
        aborted,
        wallMs: wall(),
      };
      resolve(spawnError === undefined ? base : { ...base, spawnError });
    };
    const onAbort = () => {
      aborted = true;
      terminate();
    };

    const stallMs = options.stallTimeoutMs;
    const armStall = () => {
      if (stallMs === undefined || pid === undefined || terminating) return;
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        stalled = true;
        terminate();
      }, stallMs);
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      armStall();
      out.push(chunk);
      if (options.onOutput) options.onOutput(out.decode(chunk), "stdout");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (options.stallOnStderr) armStall();
      err.push(chunk);
      if (options.onOutput) options.onOutput(err.decode(chunk), "stderr");
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (pid === undefined) finish({ code: error.code, message: error.message });
    });
    child.on("exit", (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      clearTimeout(stallTimer);
      terminate();
      sweep();
    });
    child.on("close", () => finish());

    if (pid !== undefined) {
      timers.push(
        setTimeout(() => {
          timedOut = true;
          terminate();
        }, options.timeoutMs),
      );
      armStall();
      options.signal?.addEventListener("abort", onAbort, { once: true });
    }
  });
}

/**
 * Ends the processes of every attempt this process runs now, at once (Linux; see `endAttemptProcesses`).
 * For a runner that must exit without waiting for its attempts, e.g. on a second Ctrl-C.
 */
export function endRunningAttempts(): void {
  for (const attempt of activeAttempts.values()) endAttemptProcesses(attempt());
}

function notRun(wallMs: number): ProcessGroupResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    stalled: false,
    aborted: false,
    wallMs,
  };
}

function failedToStart(code: string | undefined, message: string, wallMs: number): ProcessGroupResult {
  return { ...notRun(wallMs), spawnError: { code, message } };
}

/** Collects one stream, keeping its last `limit` bytes. */
class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) {
      const first = this.chunks.shift();
      this.size -= first?.length ?? 0;
    }
  }

  decode(chunk: Buffer): string {
    return this.decoder.write(chunk);
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    const start = Math.max(0, all.length - this.limit);
    return all.subarray(start).toString("utf8");
  }
}
