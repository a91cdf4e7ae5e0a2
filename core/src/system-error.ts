/** A refusal by the operating system, as a person should see it: one line, a next step, an exit code. */
export type SystemErrorReport = {
  /** `cannot <verb> <what>: <reason> (<CODE>)`. */
  readonly message: string;
  readonly hint: string;
  /** 2 when a flag chose what failed (an address to listen on), else 1: whilly's usage and failure codes. */
  readonly exitCode: 1 | 2;
};

/**
 * A program's own next steps for some codes, in place of the general ones: the words that name its
 * flags and files (`--port`, the embedded store). `files` is for paths, `listen` for addresses.
 */
export type SystemErrorHints = {
  readonly files?: Readonly<Partial<Record<string, string>>>;
  readonly listen?: Readonly<Partial<Record<string, string>>>;
};

/** The fields Node puts on an error from a system call (`fs`, `net`). */
type NodeSystemError = {
  readonly code: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly dest?: string;
  readonly address?: string;
  readonly port?: number;
  readonly message?: string;
};

const VERBS: Readonly<Record<string, string>> = {
  open: "open",
  read: "read",
  write: "write",
  mkdir: "create the directory",
  rmdir: "delete",
  unlink: "delete",
  rename: "rename",
  link: "create",
  symlink: "create",
  copyfile: "copy",
  scandir: "list",
  opendir: "list",
  stat: "look at",
  lstat: "look at",
  access: "use",
  chmod: "change the mode of",
  fsync: "write",
  close: "close",
  listen: "listen on",
  bind: "listen on",
};

const SHORTAGE_HINT = "free some space on that file system (df -h shows which one is full), then run again";
const PRIVILEGED_PORT_HINT = "ports below 1024 need privileges: pick a port of 1024 or above";

/** Reason and hint per error code, for files and directories. */
const FILE_FAULTS: Readonly<Record<string, readonly [reason: string, hint: string]>> = {
  ENOENT: ["no such file or directory", "check the path; a relative one is taken from the current directory"],
  ENOTDIR: ["a part of the path is not a directory", "check the path: one of its directories is a file"],
  EISDIR: ["it is a directory", "name a file, not a directory"],
  EEXIST: ["something with that name is in the way", "move or delete it, then run again"],
  EACCES: [
    "permission denied",
    "check the owner and mode of the path and its directories (ls -ld), or run as a user who may use them",
  ],
  EPERM: [
    "operation not permitted",
    "check the owner and mode of the path and its directories (ls -ld), or run as a user who may use them",
  ],
  EROFS: [
    "the file system is read-only",
    "pick a path on a writable file system, or remount this one read-write",
  ],
  ENOSPC: ["no space left on the device", SHORTAGE_HINT],
  EDQUOT: ["the disk quota is exceeded", SHORTAGE_HINT],
  EMFILE: ["too many open files", "raise the limit of open files (ulimit -n), then run again"],
  ENFILE: [
    "too many open files on this system",
    "close other programs or raise the system's limit, then run again",
  ],
  ENAMETOOLONG: ["the name is too long", "use a shorter path"],
  ELOOP: ["too many symbolic links in the path", "check the path for a symbolic link that points to itself"],
  EIO: ["input/output error", "the disk or network file system failed: check it (dmesg), then run again"],
  EBUSY: ["the resource is busy", "wait for whatever uses it to finish, then run again"],
};

/**
 * Emscripten's errno numbers, which differ from Linux's: PGlite's file system throws
 * `ErrnoError {name: "ErrnoError", errno}` (no `code`, no path, not an `Error`). Numbers from the
 * `ERRNO_CODES` table bundled in `@electric-sql/pglite`; only codes {@link FILE_FAULTS} words.
 */
const EMSCRIPTEN_ERRNOS: Readonly<Record<number, string>> = {
  2: "EACCES",
  10: "EBUSY",
  19: "EDQUOT",
  20: "EEXIST",
  29: "EIO",
  31: "EISDIR",
  32: "ELOOP",
  33: "EMFILE",
  37: "ENAMETOOLONG",
  41: "ENFILE",
  44: "ENOENT",
  51: "ENOSPC",
  54: "ENOTDIR",
  63: "EPERM",
  69: "EROFS",
};

/** Reason and hint per error code, for an address a server listens on. */
const LISTEN_FAULTS: Readonly<Record<string, readonly [reason: string, hint: string]>> = {
  EADDRINUSE: ["the port is already in use", "another process listens there: stop it, or pick another port"],
  EADDRNOTAVAIL: [
    "no interface of this machine has that address",
    "listen on an address of this machine: 127.0.0.1, or 0.0.0.0 for every interface",
  ],
  EACCES: ["permission denied", PRIVILEGED_PORT_HINT],
  EPERM: ["operation not permitted", PRIVILEGED_PORT_HINT],
};

/**
 * Turns an error the operating system raised (Node's `code`, `syscall`, `path`, `address`, `port`; on
 * the error itself or along its `cause` chain, as drivers wrap them) into one line and a hint, e.g.
 * `cannot listen on 127.0.0.1:8000: the port is already in use (EADDRINUSE)` or `cannot create the
 * directory /repo/.whilly: something with that name is in the way (EEXIST)`. Every entry point of
 * `whilly` and `whilly-worker` reports environment faults through it, so none prints a stack trace for
 * a full disk. PGlite's Emscripten `ErrnoError` counts too ({@link emscriptenErrorCode}). Reads only the
 * error's fields, so it runs anywhere core does.
 * @param subject names what failed when the error does not (e.g. `to standard output` for a write).
 * @param hints the caller's own hints for some codes (see {@link SystemErrorHints}).
 * @returns `undefined` when `error` is not a system error (then it is a bug, or one of whilly's own).
 */
export function describeSystemError(
  error: unknown,
  subject?: string,
  hints: SystemErrorHints = {},
): SystemErrorReport | undefined {
  const fault = findSystemError(error);
  if (fault === undefined) return undefined;
  const syscall = fault.syscall ?? "";
  const listening = syscall === "listen" || syscall === "bind";
  const known = (listening ? LISTEN_FAULTS : FILE_FAULTS)[fault.code];
  const own = (listening ? hints.listen : hints.files)?.[fault.code];
  const reason = known?.[0] ?? nodeReason(fault);
  const hint =
    own ?? known?.[1] ?? "the operating system refused it: fix the cause named above, then run again";
  if (syscall === "uv_cwd") {
    return {
      message: `cannot use the current directory: ${reason} (${fault.code})`,
      hint: "it was deleted or moved: cd to a directory that exists, then run again",
      exitCode: 1,
    };
  }
  // Node names a failed spawn `spawn <command>`, with the command as its path.
  const verb = syscall.startsWith("spawn ")
    ? "start"
    : (VERBS[syscall] ?? (syscall === "" ? "use" : syscall));
  const what = subject ?? target(fault);
  const message = `cannot ${verb}${what === "" ? "" : ` ${what}`}: ${reason} (${fault.code})`;
  return { message, hint, exitCode: listening ? 2 : 1 };
}

/**
 * The Node-style code (`ENOSPC`) of an Emscripten `ErrnoError`, as PGlite's file system throws it;
 * `undefined` for anything else, or an errno whilly has no words for.
 */
export function emscriptenErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { name, errno } = error as { name?: unknown; errno?: unknown };
  return name === "ErrnoError" && typeof errno === "number" ? EMSCRIPTEN_ERRNOS[errno] : undefined;
}

/** The first error with a system error `code` in `error` or its causes (at most 8 deep). */
function findSystemError(error: unknown): NodeSystemError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const emscripten = emscriptenErrorCode(current);
    // It names no file: PGlite's are the embedded database's (whilly runs no other Emscripten code).
    if (emscripten !== undefined) return { code: emscripten, path: "the embedded database's files" };
    const code = (current as { code?: unknown }).code;
    const syscall = (current as { syscall?: unknown }).syscall;
    if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) {
      if (typeof syscall === "string" || code in FILE_FAULTS) return current as NodeSystemError;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function target(fault: NodeSystemError): string {
  if (fault.address !== undefined) {
    const host = fault.address.includes(":") ? `[${fault.address}]` : fault.address;
    return fault.port === undefined ? host : `${host}:${fault.port}`;
  }
  if (fault.path !== undefined && fault.dest !== undefined) return `${fault.path} to ${fault.dest}`;
  return fault.path ?? "";
}

/** Node's own words for a code it knows and whilly does not: `ENOSPC: no space left on device, write`. */
function nodeReason(fault: NodeSystemError): string {
  const text = fault.message ?? "";
  const match = /^[A-Z0-9]+: ([^,]+)/.exec(text);
  return match?.[1] ?? "the operating system refused it";
}
