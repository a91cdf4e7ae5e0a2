import { connect, type Socket } from "node:net";
import { StoreUnavailable } from "@whilly/core";
import type { ListenForReady, ReadyListener } from "../ready/listener.js";
import type { Store, StoreDriver } from "../store.js";
import { decode, decodeError, encode, type FunctionCodec, type Wire } from "./codec.js";
import { type Frame, readFrames, writeFrame } from "./frames.js";
import { PROTOCOL_VERSION, STORE_METHODS } from "./methods.js";
import { findSocket } from "./socket-path.js";

type Hello = Extract<Frame, { t: "hello" }>;
type Pending = { resolve: (value: Wire) => void; reject: (error: Error) => void };

/** Options of {@link connectLocalStore}. */
export type ConnectOptions = {
  /**
   * Called once when the connection ends without this side's `close()` (the owner stopped or handed
   * the store over): every later call fails with `StoreUnavailable`, so a caller reopens.
   */
  readonly onLost?: (() => void) | undefined;
};

/** What the owner said to {@link requestHandOver}. */
export type HandOverAnswer =
  /** It hands the store over: it closes it and releases the lock. */
  | "accepted"
  /** It keeps the store (`whilly run`, `whilly server`). */
  | "refused"
  /** No process serves the store here, or it did not answer within the wait. */
  | "no-answer";

/**
 * Asks the process serving the embedded store in `whillyDir` to hand it over, for a command that must
 * own it; waits at most `waitMs` for the answer. An accepting owner finishes the calls under way,
 * closes the store and releases its lock soon after answering: the caller then takes the lock.
 */
export async function requestHandOver(whillyDir: string, waitMs: number): Promise<HandOverAnswer> {
  const path = findSocket(whillyDir);
  if (path === undefined) return "no-answer";
  const socket = connect(path);
  socket.on("error", () => {});
  const frames = new FrameRoute(socket);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"no-answer">((resolve) => {
    timer = setTimeout(() => resolve("no-answer"), waitMs);
  });
  const asked = (async (): Promise<HandOverAnswer> => {
    const hello = await greeting(socket, frames);
    if (hello === undefined || hello.v !== PROTOCOL_VERSION) return "no-answer";
    return new Promise<HandOverAnswer>((resolve) => {
      socket.once("close", () => resolve("no-answer"));
      frames.to = (frame) => {
        if (frame.t === "ok" && frame.id === 1) resolve(frame.r === true ? "accepted" : "refused");
      };
      writeFrame(socket, { t: "handover", id: 1 });
    });
  })();
  try {
    return await Promise.race([asked, timeout]);
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}

/**
 * The store that another whilly process owning the embedded store in `whillyDir` serves on its local
 * socket (see `serveStoreLocally`): a Store whose every method is a call over the socket, errors
 * re-created as the same classes. Its `close()` closes only the connection.
 * @returns `undefined` when no process serves it: no socket, a stale one (ECONNREFUSED), another
 *   user's, or a server of another protocol version. Waits for the greeting while the owner is still
 *   opening the store.
 */
export async function connectLocalStore(
  whillyDir: string,
  options: ConnectOptions = {},
): Promise<Store | undefined> {
  const path = findSocket(whillyDir);
  if (path === undefined) return undefined;
  const socket = connect(path);
  socket.on("error", () => {});
  const frames = new FrameRoute(socket);
  const hello = await greeting(socket, frames);
  if (hello === undefined || hello.v !== PROTOCOL_VERSION) {
    socket.destroy();
    return undefined;
  }
  return proxyStore(socket, frames, hello, whillyDir, options.onLost);
}

/** The connection's frames, handed to whoever reads them now: the greeting, then the proxy. */
class FrameRoute {
  to: (frame: Frame) => void = () => {};
  constructor(socket: Socket) {
    readFrames(socket, (frame) => this.to(frame));
  }
}

/** The server's first frame, or `undefined` when the connection fails or ends before it. */
function greeting(socket: Socket, frames: FrameRoute): Promise<Hello | undefined> {
  return new Promise((resolve) => {
    const end = () => resolve(undefined);
    socket.once("close", end);
    frames.to = (frame) => {
      socket.off("close", end);
      frames.to = () => {};
      resolve(frame.t === "hello" ? frame : undefined);
    };
  });
}

function proxyStore(
  socket: Socket,
  frames: FrameRoute,
  hello: Hello,
  whillyDir: string,
  onLost: (() => void) | undefined,
): Store {
  const pending = new Map<number, Pending>();
  const callbacks = new Map<number, (...args: unknown[]) => unknown>();
  let nextId = 1;
  let nextCallback = 1;
  let lost: StoreUnavailable | undefined;
  let closedHere = false;
  frames.to = (frame) => {
    if (frame.t === "ok") settle(frame.id, (p) => p.resolve(frame.r));
    else if (frame.t === "err") settle(frame.id, (p) => p.reject(decodeError(frame.e)));
    else if (frame.t === "cb") callbacks.get(frame.f)?.(...frame.a.map((arg) => decode(arg)));
  };
  const settle = (id: number, how: (pending: Pending) => void) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (waiting) how(waiting);
  };
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  void closed.then(() => {
    lost ??= new StoreUnavailable(
      `the whilly process (pid ${hello.pid}) serving the embedded store in ${whillyDir} stopped before answering`,
      { hint: "run the command again: with that process gone, whilly opens the store itself" },
    );
    for (const waiting of pending.values()) waiting.reject(lost);
    pending.clear();
    callbacks.clear();
    if (!closedHere) onLost?.();
  });
  /** Sends a frame and waits for its answer; function arguments become handles kept in `handles`. */
  const send = (frame: (id: number) => Frame): Promise<Wire> => {
    if (lost) return Promise.reject(lost);
    const id = nextId++;
    return new Promise<Wire>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      writeFrame(socket, frame(id));
    });
  };
  const call = async (
    method: string,
    args: unknown[],
    keep: boolean,
  ): Promise<{ r: Wire; handles: number[] }> => {
    const handles: number[] = [];
    const functions: FunctionCodec = {
      encode: (fn) => {
        const handle = nextCallback++;
        callbacks.set(handle, fn as (...args: unknown[]) => unknown);
        handles.push(handle);
        return handle;
      },
    };
    try {
      const a = args.map((arg) => encode(arg, functions));
      return { r: await send((id) => ({ t: "call", id, m: method, a })), handles };
    } finally {
      if (!keep) for (const handle of handles) callbacks.delete(handle);
    }
  };
  const listen =
    (method: string): ListenForReady =>
    async (onReady, options) => {
      const { r, handles } = await call(method, [onReady, options], true);
      let ended = false;
      const listener: ReadyListener = {
        async close() {
          if (ended) return;
          ended = true;
          for (const handle of handles) callbacks.delete(handle);
          if (!lost) await send((id) => ({ t: "unlisten", id, sub: Number(r) })).catch(() => {});
        },
      };
      return listener;
    };
  const store: Record<string, unknown> = { driver: hello.driver as StoreDriver };
  for (const [name, kind] of Object.entries(STORE_METHODS)) {
    if (kind === "call")
      store[name] = async (...args: unknown[]) => decode((await call(name, args, false)).r);
    else if (kind === "listen" && hello.listens.includes(name)) store[name] = listen(name);
  }
  store.close = async () => {
    closedHere = true;
    socket.end();
    await closed;
  };
  return store as unknown as Store;
}
