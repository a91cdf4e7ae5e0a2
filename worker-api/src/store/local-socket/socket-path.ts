import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";

/** The socket's name in the whilly directory (`.whilly/whilly.sock`). */
export const SOCKET_NAME = "whilly.sock";
/** The file naming the socket when its path in the whilly directory would be too long. */
export const ADVERT_NAME = "socket";
/** Private directories under the system temp directory that hold a socket are named so. */
const TMP_PREFIX = "whilly-sock-";

/** The longest unix socket path (bytes): `sun_path` holds 108 on Linux, 104 on macOS, NUL included. */
export const MAX_SOCKET_PATH = process.platform === "linux" ? 107 : 103;

/** Where an owner listens, and whether an advert names it. */
export type SocketPlace = { readonly path: string; readonly advert: string | undefined };

/**
 * Chooses where the owner of the store in `whillyDir` listens: `whillyDir/whilly.sock`, or, when that
 * path is too long for a unix socket, `s.sock` in a new private directory (0700) under the system
 * temp directory, named by the advert file `whillyDir/socket` (0600). A socket or advert left by a
 * killed owner is removed first: the caller holds the store's lock, so no live owner has one.
 * @returns `undefined` when even the temp directory's path is too long.
 */
export function chooseSocketPlace(whillyDir: string): SocketPlace | undefined {
  removeStale(whillyDir);
  const inside = join(whillyDir, SOCKET_NAME);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return { path: inside, advert: undefined };
  const dir = mkdtempSync(join(tmpdir(), TMP_PREFIX));
  const path = join(dir, "s.sock");
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    rmdirSync(dir);
    return undefined;
  }
  const advert = join(whillyDir, ADVERT_NAME);
  const draft = `${advert}.${process.pid}.tmp`;
  writeFileSync(draft, `${path}\n`, { mode: 0o600 });
  renameSync(draft, advert);
  return { path, advert };
}

/**
 * The socket a client of the store in `whillyDir` tries: the one the advert names, else
 * `whillyDir/whilly.sock`; only a socket owned by this user (the owner's, not another's planted one).
 * @returns `undefined` when there is none.
 */
export function findSocket(whillyDir: string): string | undefined {
  const path = advertised(whillyDir) ?? join(whillyDir, SOCKET_NAME);
  try {
    const stat = lstatSync(path);
    if (!stat.isSocket()) return undefined;
    if (typeof process.getuid === "function" && stat.uid !== process.getuid()) return undefined;
    return path;
  } catch {
    return undefined;
  }
}

/**
 * Removes the owner's socket (and its advert and temp directory); safe to call twice. Only a socket is
 * unlinked at `place.path`: a file someone put there is not whilly's to delete.
 */
export function removeSocketPlace(place: SocketPlace): void {
  unlinkSocket(place.path);
  if (place.advert === undefined) return;
  if (advertised(dirname(place.advert)) === place.path) unlinkQuietly(place.advert);
  rmdirQuietly(dirname(place.path));
}

/** The socket path the advert in `whillyDir` names, when it names an absolute one. */
function advertised(whillyDir: string): string | undefined {
  try {
    const path = readFileSync(join(whillyDir, ADVERT_NAME), "utf8").trim();
    return isAbsolute(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** What a killed owner left: its socket, and its advert with the temp directory it names. */
function removeStale(whillyDir: string): void {
  unlinkSocket(join(whillyDir, SOCKET_NAME));
  const old = advertised(whillyDir);
  unlinkQuietly(join(whillyDir, ADVERT_NAME));
  // Only what whilly made: a socket in a directory of its own under the temp directory.
  if (
    old === undefined ||
    dirname(dirname(old)) !== tmpdir() ||
    !basename(dirname(old)).startsWith(TMP_PREFIX)
  )
    return;
  unlinkSocket(old);
  rmdirQuietly(dirname(old));
}

function unlinkSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function rmdirQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Gone already, or not empty (not ours to empty).
  }
}
