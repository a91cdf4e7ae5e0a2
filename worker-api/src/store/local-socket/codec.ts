import * as core from "@whilly/core";
import { BearerNotStored } from "../workers/presented-bearer.js";

/** A JSON value: what one frame of the local socket carries. */
export type Wire = null | boolean | number | string | Wire[] | { [key: string]: Wire };

/** The key marking an encoded value that JSON has no form for. */
const TAG = "$w";

/**
 * How a function inside a value crosses the socket: `encode` turns it into a handle (the caller keeps
 * the function), `decode` turns a handle back into a function that reaches the other side.
 */
export type FunctionCodec = {
  readonly encode?: ((fn: (...args: never[]) => unknown) => number) | undefined;
  readonly decode?: ((handle: number) => (...args: unknown[]) => void) | undefined;
};

/**
 * Encodes what the Store interface carries as JSON that {@link decode} turns back into the same
 * shape: `Date`, `bigint`, `undefined` (kept apart from `null`, in objects and arrays), non-finite
 * numbers and -0, `Uint8Array`, an `Error` (see {@link encodeError}), and an object that itself has the key `$w`. A function becomes a
 * handle through `functions.encode` (a callback such as an import's `onProgress`).
 * @throws {TypeError} for a function without `functions.encode`, a symbol, or a cycle.
 */
export function encode(value: unknown, functions: FunctionCodec = {}, seen = new Set<object>()): Wire {
  switch (typeof value) {
    case "undefined":
      return { [TAG]: "u" };
    case "boolean":
    case "string":
      return value;
    case "number":
      if (Number.isFinite(value) && !Object.is(value, -0)) return value;
      return { [TAG]: "n", v: Object.is(value, -0) ? "-0" : String(value) };
    case "bigint":
      return { [TAG]: "b", v: value.toString() };
    case "function":
      if (!functions.encode) throw new TypeError("a function cannot cross the local socket here");
      return { [TAG]: "f", v: functions.encode(value as (...args: never[]) => unknown) };
    case "symbol":
      throw new TypeError("a symbol cannot cross the local socket");
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Date)
    return { [TAG]: "d", v: Number.isNaN(object.getTime()) ? null : object.toISOString() };
  if (object instanceof Uint8Array) return { [TAG]: "y", v: Buffer.from(object).toString("base64") };
  if (object instanceof Error) return { [TAG]: "e", v: encodeError(object) as unknown as Wire };
  if (seen.has(object)) throw new TypeError("a cyclic value cannot cross the local socket");
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => encode(item, functions, seen));
    const out: { [key: string]: Wire } = {};
    for (const [key, item] of Object.entries(object)) out[key] = encode(item, functions, seen);
    return Object.hasOwn(out, TAG) ? { [TAG]: "o", v: out } : out;
  } finally {
    seen.delete(object);
  }
}

/** Turns what {@link encode} made back into its value. */
export function decode(wire: Wire, functions: FunctionCodec = {}): unknown {
  if (wire === null || typeof wire !== "object") return wire;
  if (Array.isArray(wire)) return wire.map((item) => decode(item, functions));
  if (!Object.hasOwn(wire, TAG)) return decodeEntries(wire, functions);
  const v = wire.v;
  switch (wire[TAG]) {
    case "u":
      return undefined;
    case "n":
      return v === "-0" ? -0 : Number(v);
    case "b":
      return BigInt(String(v));
    case "d":
      return new Date(v === null ? Number.NaN : String(v));
    case "y":
      return new Uint8Array(Buffer.from(String(v), "base64"));
    case "e":
      return decodeError(v as unknown as WireError);
    case "o":
      return decodeEntries(v as { [key: string]: Wire }, functions);
    case "f":
      if (!functions.decode) throw new TypeError("a function cannot cross the local socket here");
      return functions.decode(Number(v));
    default:
      throw new TypeError(`unknown encoded value '${String(wire[TAG])}'`);
  }
}

function decodeEntries(wire: { [key: string]: Wire }, functions: FunctionCodec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(wire)) out[key] = decode(item, functions);
  return out;
}

/** An error as it crosses the socket. */
export type WireError = {
  readonly name: string;
  readonly message: string;
  readonly stack?: string | undefined;
  /** Its own enumerable fields (`code`, `hint`, `planId`, `issues`, a system error's `syscall`...). */
  readonly fields: Wire;
  readonly cause?: WireError | undefined;
};

/**
 * The error classes re-created by name on the receiving side: every `WhillyError` core exports (the
 * one error tree, so exit codes and messages stay the same) and the store's own `BearerNotStored`.
 */
const ERROR_CLASSES: ReadonlyMap<string, { prototype: Error }> = new Map(
  [...(Object.values(core) as unknown[]), BearerNotStored]
    .filter(
      (value): value is { prototype: Error; name: string } =>
        value === BearerNotStored ||
        (typeof value === "function" && value.prototype instanceof core.WhillyError),
    )
    .map((cls) => [cls.name, cls]),
);

/** Encodes a thrown value (its `cause` chain included, four deep) for {@link decodeError}. */
export function encodeError(error: unknown, depth = 0): WireError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) if (typeof value !== "function") fields[key] = value;
  let wireFields: Wire;
  try {
    wireFields = encode(fields);
  } catch {
    wireFields = {};
  }
  const cause = error.cause !== undefined && depth < 4 ? encodeError(error.cause, depth + 1) : undefined;
  return { name: error.name, message: error.message, stack: error.stack, fields: wireFields, cause };
}

/**
 * Re-creates an error {@link encodeError} sent: an instance of the same class of whilly's error tree
 * (matched by name) with the same fields, message and stack; any other error as an `Error` with them.
 */
export function decodeError(wire: WireError): Error {
  const cls = ERROR_CLASSES.get(wire.name);
  const error: Error = cls ? (Object.create(cls.prototype) as Error) : new Error(wire.message);
  Object.assign(error, decode(wire.fields));
  hidden(error, "message", wire.message);
  if (!cls && wire.name !== "Error") hidden(error, "name", wire.name);
  hidden(error, "stack", wire.stack ?? `${wire.name}: ${wire.message}`);
  if (wire.cause !== undefined) hidden(error, "cause", decodeError(wire.cause));
  return error;
}

function hidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}
