import { InvalidInput } from "./errors.js";

/** Longest lease a claim or heartbeat may ask for: one day, in milliseconds. */
export const MAX_LEASE_MS = 86_400_000;

/** @throws {InvalidInput} unless `leaseMs` is a whole number of milliseconds in `[1, MAX_LEASE_MS]`. */
export function assertLeaseMs(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new InvalidInput("leaseMs", `lease must be 1 to ${MAX_LEASE_MS} ms; got ${leaseMs}`);
  }
}
