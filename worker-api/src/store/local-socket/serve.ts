import { chmodSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { InvalidInput, StoreUnavailable } from "@whilly/core";
import type { ReadyListener } from "../ready/listener.js";
import type { Store } from "../store.js";
import { decode, encode, encodeError, type FunctionCodec, type Wire } from "./codec.js";
import { type Frame, readFrames, writeFrame } from "./frames.js";
import { methodKind, PROTOCOL_VERSION } from "./methods.js";
import { chooseSocketPlace, removeSocketPlace } from "./socket-path.js";

/** The owner's side of the local socket. */
export type LocalStoreServer = {
  /** The socket's path. */
  readonly path: string;
  /**
   * Stops serving: refuses new calls, waits for those under way, ends every subscription and
   * connection, and removes the socket (and its advert). Safe to call twice.
   */
  close(): Promise<void>;
};

/** Options of {@link serveStoreLocally}. */
export type ServeOptions = {
  /**
   * Hands the store over to a command that must own it, when one asks (see `requestHandOver`):
   * called once, after the answer is sent; it stops serving (`close()`), closes the store and
   * releases the lock. Hand-over is refused when `undefined` (an exclusive owner).
   */
  readonly handOver?: (() => Promise<void>) | undefined;
};

/**
 * Serves `store` to other whilly processes of this user over a unix socket in `whillyDir` (mode 0600;
 * see {@link chooseSocketPlace} for a path too long), so that commands run while this process owns
 * the embedded store work through it instead of failing on its lock. The socket is bound before this
 * returns, and calls wait for `store` (still opening); when it fails to open, connections are closed.
 * Only the Store interface's members are callable (`STORE_METHODS`); errors reach the client as the
 * same classes. The socket is removed on `close()` and at exit; one left by a killed process is
 * refused connections (ECONNREFUSED) and replaced by the next owner.
 * @returns `undefined` when no socket could be made here (the store is then served to no one).
 */
export function serveStoreLocally(
  whillyDir: string,
  store: Promise<Store>,
  options: ServeOptions = {},
): LocalStoreServer | undefined {
  let place: ReturnType<typeof chooseSocketPlace>;
  try {
    place = chooseSocketPlace(whillyDir);
  } catch {
    return undefined;
  }
  if (place === undefined) return undefined;
  const socketPlace = place;
  const connections = new Map<Socket, { endSubscriptions(): Promise<void> }>();
  const underWay = new Set<Promise<unknown>>();
  let closing = false;
  let handedOver = false;
  const handOver = options.handOver && {
    /** True the first time only: one hand-over per owner. */
    begin: () => {
      if (closing || handedOver) return false;
      handedOver = true;
      return true;
    },
    run: options.handOver,
  };
  const server = createServer((socket) => {
    socket.on("error", () => {});
    const served = serveConnection(socket, store, { closing: () => closing, underWay, handOver });
    connections.set(socket, served);
    socket.on("close", () => {
      connections.delete(socket);
      void served.endSubscriptions();
    });
  });
  server.on("error", () => {});
  // Serving never keeps the process alive by itself: the owner's own work does, and closes the store.
  server.unref();
  try {
    // Binding a unix socket happens within listen(); a failure (the path taken by a file that is no
    // socket) leaves the server not listening and is reported later as an 'error': never touch the
    // path then, it is not ours.
    server.listen(socketPlace.path);
    if (!server.listening) {
      server.close();
      // The advert's socket is in whilly's own temp directory: that place is whilly's to remove.
      if (socketPlace.advert !== undefined) removeSocketPlace(socketPlace);
      return undefined;
    }
    chmodSync(socketPlace.path, 0o600);
  } catch {
    server.close();
    removeSocketPlace(socketPlace);
    return undefined;
  }
  const atExit = () => removeSocketPlace(socketPlace);
  process.on("exit", atExit);
  let closed: Promise<void> | undefined;
  return {
    path: socketPlace.path,
    close() {
      closed ??= (async () => {
        closing = true;
        server.close();
        // Calls under way finish first, but a call that hangs does not hold the owner's exit up.
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...underWay]),
          new Promise((resolve) => {
            bound = setTimeout(resolve, CLOSE_WAIT_MS);
          }),
        ]);
        clearTimeout(bound);
        const served = [...connections];
        for (const [socket] of served) socket.destroy();
        await Promise.all(served.map(([, connection]) => connection.endSubscriptions()));
        removeSocketPlace(socketPlace);
        process.off("exit", atExit);
      })();
      return closed;
    },
  };
}

/** How long closing waits for calls under way before it ends their connections anyway (ms). */
const CLOSE_WAIT_MS = 5_000;

/**
 * The most calls one connection may have under way: a client waits for its answers, so more is a
 * peer pipelining without reading, whose connection ends rather than the owner's memory growing.
 */
export const MAX_CALLS_IN_FLIGHT = 256;

/** One client's connection: the greeting once the store is open, then its calls. */
function serveConnection(
  socket: Socket,
  opening: Promise<Store>,
  shared: {
    closing: () => boolean;
    underWay: Set<Promise<unknown>>;
    handOver: { begin(): boolean; run(): Promise<void> } | undefined;
  },
): { endSubscriptions(): Promise<void> } {
  const subscriptions = new Map<number, ReadyListener>();
  let nextSubscription = 1;
  let gone = false;
  const endSubscriptions = async () => {
    gone = true;
    const all = [...subscriptions.values()];
    subscriptions.clear();
    await Promise.allSettled(all.map((listener) => listener.close()));
  };
  // A function handle of the client becomes a function that asks the client to call it.
  const functions: FunctionCodec = {
    decode:
      (handle) =>
      (...args) =>
        writeFrame(socket, { t: "cb", f: handle, a: args.map((arg) => encode(arg)) }),
  };
  let inFlight = 0;
  const answer = async (id: number, work: () => Promise<Wire>) => {
    if (inFlight >= MAX_CALLS_IN_FLIGHT) return void socket.destroy();
    inFlight += 1;
    const task = work().then(
      (r): Frame => ({ t: "ok", id, r }),
      (error: unknown): Frame => ({ t: "err", id, e: encodeError(error) }),
    );
    shared.underWay.add(task);
    try {
      writeFrame(socket, await task);
    } finally {
      inFlight -= 1;
      shared.underWay.delete(task);
    }
  };
  const onFrame = (store: Store, frame: Frame) => {
    if (frame.t === "unlisten") {
      const listener = subscriptions.get(frame.sub);
      subscriptions.delete(frame.sub);
      void answer(frame.id, async () => {
        await listener?.close();
        return null;
      });
      return;
    }
    if (frame.t === "handover") {
      const yields = shared.handOver?.begin() === true;
      writeFrame(socket, { t: "ok", id: frame.id, r: yields });
      // After the answer: the hand-over ends this connection with the others.
      if (yields) setImmediate(() => void shared.handOver?.run().catch(() => {}));
      return;
    }
    if (frame.t !== "call") return;
    void answer(frame.id, async () => {
      if (shared.closing()) {
        throw new StoreUnavailable("the whilly process serving this store is stopping", {
          hint: "run the command again when it has stopped",
        });
      }
      const kind = methodKind(frame.m);
      const method = (store as unknown as Record<string, unknown>)[frame.m];
      if ((kind !== "call" && kind !== "listen") || typeof method !== "function") {
        throw new InvalidInput("method", `the store's local socket serves no method '${frame.m}'`);
      }
      const args = frame.a.map((arg) => decode(arg, functions));
      const result: unknown = await method.apply(store, args);
      if (kind === "call") return encode(result);
      const listener = result as ReadyListener;
      if (gone) {
        await listener.close();
        return null;
      }
      const id = nextSubscription++;
      subscriptions.set(id, listener);
      return id;
    });
  };
  opening.then(
    (store) => {
      const listens = (["listenForReady", "listenForEvents"] as const).filter((name) => store[name]);
      writeFrame(socket, {
        t: "hello",
        v: PROTOCOL_VERSION,
        driver: store.driver,
        listens,
        pid: process.pid,
      });
      readFrames(socket, (frame) => onFrame(store, frame));
    },
    () => socket.destroy(),
  );
  return { endSubscriptions };
}
