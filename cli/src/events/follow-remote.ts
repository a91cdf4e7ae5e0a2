import { ConfigurationError, PlanNotFound, TransportError } from "@whilly/core";
import { type EventView, pagedEventView } from "./event-view.js";
import type { EventsQuery } from "./follow-store.js";
import { sseMessages } from "./sse-frames.js";

/** A control plane to read from: its base URL, a reader's token, and how long a request may take (ms). */
export type RemoteSource = { readonly url: string; readonly token: string; readonly timeoutMs: number };

/** The most events the read API pages at once. */
const PAGE = 1000;

/**
 * Prints a plan's audit log from a control plane (`--connect`) through `emit`. Without `follow` it
 * pages `GET /api/v1/plans/{id}/events`; with `follow` it reads the server-sent events of
 * `GET /api/v1/plans/{id}/events/stream`, reconnecting with the last event id after a truncated
 * replay (at once) or a lost connection (after `retryMs`), so nothing is skipped or printed twice.
 * @returns how many events were printed.
 * @throws {PlanNotFound} for an unknown plan; {@link ConfigurationError} when the server cannot be
 *   reached at first or refuses the token; {@link TransportError} for another refusal.
 */
export async function printRemoteEvents(
  source: RemoteSource,
  query: EventsQuery,
  retryMs: number,
  emit: (event: EventView) => void,
): Promise<number> {
  const base = source.url.replace(/\/+$/, "");
  const events = `${base}/api/v1/plans/${encodeURIComponent(query.planId)}/events`;
  const printer = new Printer(query, emit);
  if (!query.follow) {
    await listPages(source, events, printer, query.signal);
    return printer.printed;
  }
  let connected = false;
  while (!query.signal?.aborted) {
    let response: Response;
    try {
      response = await request(source, `${events}/stream`, query.signal, {
        accept: "text/event-stream",
        "last-event-id": String(printer.after),
      });
      connected = true;
    } catch (error) {
      // A refusal, or an unreachable server at first, ends the command; a server lost later is retried.
      if (!connected || !lostServer(error) || query.signal?.aborted) throw error;
      await pause(retryMs, query.signal);
      continue;
    }
    const end = await printer.readStream(response);
    if (end === "done") break;
    // A truncated replay goes on at once; a stream the server ended (it stopped) after a pause.
    if (end === "ended") await pause(retryMs, query.signal);
  }
  return printer.printed;
}

/** Prints the read API's pages of events until a short page or `--limit`. */
async function listPages(
  source: RemoteSource,
  events: string,
  printer: Printer,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (;;) {
    const size = printer.limit === undefined ? PAGE : Math.min(PAGE, printer.limit - printer.printed);
    const response = await request(source, `${events}?after=${printer.after}&limit=${size}`, signal);
    const page = ((await response.json()) as { events: Omit<EventView, "worker_id">[] }).events;
    for (const event of page) if (printer.take(pagedEventView(event))) return;
    if (page.length < size) return;
  }
}

/** Prints events and remembers the last one, where a reconnect resumes. */
class Printer {
  printed = 0;
  after: number;

  constructor(
    private readonly query: EventsQuery,
    private readonly emit: (event: EventView) => void,
  ) {
    this.after = query.afterId ?? 0;
  }

  get limit(): number | undefined {
    return this.query.limit;
  }

  /** Prints `event`. @returns true when `--limit` is reached. */
  take(event: EventView): boolean {
    this.emit(event);
    this.after = event.id;
    return ++this.printed === this.query.limit;
  }

  /**
   * Prints a stream's events until it ends. @returns "done" at `--limit`, "truncated" after a
   * truncated replay, "ended" when the stream ended or dropped (or Ctrl-C aborted it).
   */
  async readStream(response: Response): Promise<"done" | "truncated" | "ended"> {
    try {
      for await (const message of sseMessages(response.body ?? emptyBody())) {
        if (message.event === "replay_truncated") return "truncated";
        if (message.event === undefined && message.data !== "" && this.take(JSON.parse(message.data))) {
          return "done";
        }
      }
    } catch {
      // The connection dropped mid-stream, or Ctrl-C aborted it.
    }
    return "ended";
  }
}

/**
 * One GET with the reader's token.
 * @throws {PlanNotFound} on 404 `plan_not_found`; {@link ConfigurationError} when unreachable, on 401
 *   or 403; {@link TransportError} on another error status.
 */
export async function request(
  source: RemoteSource,
  url: string,
  signal: AbortSignal | undefined,
  headers: Record<string, string> = { accept: "application/json" },
): Promise<Response> {
  let response: Response;
  const base = new URL(url).origin;
  try {
    // The timeout covers the answer's headers; a stream then runs as long as it lasts.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), source.timeoutMs);
    const aborted = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      response = await fetch(url, {
        headers: { ...headers, authorization: `Bearer ${source.token}` },
        signal: aborted,
      });
    } finally {
      clearTimeout(timer);
    }
  } catch (cause) {
    throw new ConfigurationError(`the control plane at ${base} cannot be reached (${reason(cause)})`, {
      hint: "check --connect URL and that whilly server runs there; WHILLY_CONNECT_TIMEOUT gives it longer",
      cause,
    });
  }
  if (response.ok) return response;
  const text = await response.text();
  const envelope = safeJson(text) as { error_code?: string; detail?: string } | undefined;
  if (response.status === 404 && envelope?.error_code === "plan_not_found") {
    throw new PlanNotFound(decodeURIComponent(new URL(url).pathname.split("/")[4] ?? ""));
  }
  const what = `GET ${new URL(url).pathname} at ${base} answered ${response.status}${envelope?.error_code ? ` ${envelope.error_code}` : ""}: ${envelope?.detail ?? text.slice(0, 300)}`;
  if (response.status === 401 || response.status === 403) {
    throw new ConfigurationError(what, {
      hint: "set WHILLY_READ_TOKEN to a read token (whilly token create --read-only) or WHILLY_ADMIN_TOKEN to the server's admin token",
    });
  }
  throw new TransportError(what, response.status, {
    retryable: response.status >= 500,
    hint: "fix what the server says, then run again",
  });
}

/** Whether `error` says the server was lost (unreachable, or a 5xx) rather than refusing the request. */
function lostServer(error: unknown): boolean {
  if (error instanceof TransportError) return error.retryable;
  return error instanceof ConfigurationError && error.cause !== undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reason(cause: unknown): string {
  const error = cause as { name?: string; message?: string; cause?: { code?: string } };
  if (error?.name === "AbortError" || error?.name === "TimeoutError") return "no answer in time";
  return error?.cause?.code ?? error?.message ?? String(cause);
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
