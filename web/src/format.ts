/** Formatting of the API's values for people: money, durations, ages. */

/** A six-decimal USD string as `$0.12` (`$0.0012` below a cent; `–` for none). */
export function usd(value: string | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  return `$${n !== 0 && Math.abs(n) < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
}

/** A duration in ms as `<1s`, `42s`, `3m 05s` or `2h 04m`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1000) return "<1s";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** Milliseconds since an ISO time (`null` for none). */
export function since(iso: string | null | undefined, now = Date.now()): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : now - t;
}

/** A local date and time for an ISO time. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/**
 * The entries of a failure or verification record worth a line: an empty string, `null` or a missing
 * value says nothing to a reader (an agent that printed nothing has an empty `output_tail`).
 */
export function filledEntries(record: Record<string, unknown>): [string, unknown][] {
  return Object.entries(record).filter(([, v]) => v !== "" && v !== null && v !== undefined);
}
