import { appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Fault, newFaultState, planMove } from "./play.js";
import { errorType, type Reply, replyJson, replySse } from "./reply.js";
import { readRequest } from "./request.js";
import { type FakeScript, ScriptError, validateScript } from "./script.js";

/** One request the fake saw. Never holds headers, so the API key stays out of logs. */
export type RequestLogEntry = {
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly kind: "agent" | "side" | "warmup" | "probe" | "other";
  readonly sessionId?: string | undefined;
  readonly taskId?: string | undefined;
  /** The generation request (`plan`, `prd`) its prompt names on a `Generate:` line, if any. */
  readonly generate?: string | undefined;
  /** The script played: a task id, `generate:<name>` or `default`. */
  readonly script?: string | undefined;
  readonly turn?: number | undefined;
  /** The attempt, from the latest `Attempt: N of M` line (1 when none). */
  readonly attempt?: number | undefined;
  /**
   * On an attempt's first turn (turn 0) only: the prompt it answers, at most 16 KiB (see
   * `RequestFacts.prompt`), so a test can see what an attempt was told.
   */
  readonly prompt?: string | undefined;
  readonly model?: string | undefined;
  readonly stream?: boolean | undefined;
  readonly tools?: readonly string[] | undefined;
  readonly toolResults?:
    | readonly { readonly id: string; readonly isError: boolean; readonly text: string }[]
    | undefined;
  readonly reply?: { readonly stopReason: string; readonly blocks: readonly string[] } | undefined;
  readonly fault?: string | undefined;
  /** e.g. `tools_not_offered: Write` when the script calls a tool the CLI did not offer. */
  readonly warnings: readonly string[];
};

/** Options of {@link startFakeAnthropic}: a script object or a JSON file holding one. */
export type FakeAnthropicOptions = {
  readonly script?: FakeScript;
  readonly scriptFile?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
  /** The clock of `for_ms` faults, ms (tests move it by hand); default `performance.now()`. */
  readonly clock?: () => number;
  /** A JSONL file to append one {@link RequestLogEntry} per request to, or a callback. */
  readonly log?: string | ((entry: RequestLogEntry) => void);
};

/** A running fake. */
export type FakeAnthropic = {
  /** `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, oldest first. */
  requests(): RequestLogEntry[];
  /** Replaces the script; fault counters and `for_ms` clocks start over. */
  setScript(script: FakeScript): void;
  /** Stops listening and drops open connections, including hung ones. */
  close(): Promise<void>;
};

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Starts a scripted fake of the Anthropic Messages API on loopback. It answers `POST /v1/messages`
 * (streaming SSE or plain JSON) from the script, `POST /v1/messages/count_tokens`, and the CLI's
 * connectivity probes (`HEAD /`, `HEAD /api/hello`). See {@link FakeScript} for the script format.
 * @throws {ScriptError} for an invalid script, naming the file for a `scriptFile`; the read error
 *   for a `scriptFile` that cannot be read.
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropic> {
  let script =
    options.scriptFile !== undefined
      ? await loadScriptFile(options.scriptFile)
      : validateScript(options.script ?? {});
  let faults = newFaultState(options.clock);
  const entries: RequestLogEntry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let messageCount = 0;

  const record = (entry: RequestLogEntry) => {
    entries.push(entry);
    if (typeof options.log === "function") options.log(entry);
    else if (typeof options.log === "string") appendFileSync(options.log, `${JSON.stringify(entry)}\n`);
  };

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `fake-anthropic crashed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date().toISOString();
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    if (method === "HEAD" || (method === "GET" && (path === "/" || path === "/api/hello"))) {
      record({ at, method, path, kind: "probe", warnings: [] });
      res
        .writeHead(200, { "content-type": "text/plain" })
        .end(method === "HEAD" ? undefined : "fake-anthropic");
      return;
    }
    if (method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
      record({ at, method, path, kind: "other", warnings: [] });
      sendError(res, 404, `fake-anthropic has no route ${method} ${path}`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      record({ at, method, path, kind: "other", warnings: ["bad_json"] });
      sendError(res, 400, `request body is not JSON: ${String(error)}`);
      return;
    }
    if (path === "/v1/messages/count_tokens") {
      record({ at, method, path, kind: "other", warnings: [] });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 1200 }));
      return;
    }
    await answerMessage(req, res, body, at);
  }

  async function answerMessage(req: IncomingMessage, res: ServerResponse, body: unknown, at: string) {
    const facts = readRequest(body);
    const sessionHeader = req.headers["x-claude-code-session-id"];
    const sessionId = typeof sessionHeader === "string" ? sessionHeader : undefined;
    messageCount += 1;
    const move = planMove({
      script,
      facts,
      messageId: `fake${String(messageCount).padStart(4, "0")}`,
      sessionKey: sessionId ?? facts.taskId ?? "-",
      faults,
    });
    const base = {
      at,
      method: "POST",
      path: "/v1/messages",
      kind: facts.kind,
      sessionId,
      taskId: facts.taskId,
      generate: facts.generate,
      script: move.script,
      turn: facts.turn,
      attempt: facts.attempt,
      ...(facts.kind === "agent" && facts.turn === 0 ? { prompt: facts.prompt } : {}),
      model: facts.model,
      stream: facts.stream,
      tools: facts.toolNames,
      toolResults: facts.toolResults,
    };
    if (move.type === "fault") {
      record({ ...base, fault: describeFault(move.fault), warnings: [] });
      sendFault(res, move.fault, facts.stream);
      return;
    }
    const missing = move.reply.content.flatMap((b) =>
      b.type === "tool_use" && !facts.toolNames.includes(b.name) ? [`tools_not_offered: ${b.name}`] : [],
    );
    record({ ...base, reply: summary(move.reply), warnings: missing });
    if (move.delayMs > 0) await wait(move.delayMs);
    sendReply(res, move.reply, facts.stream);
  }

  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    requests: () => [...entries],
    setScript(next) {
      script = validateScript(next);
      faults = newFaultState(options.clock);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error("request body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendReply(res: ServerResponse, reply: Reply, stream: boolean): void {
  const headers = { "request-id": `req_${reply.id}` };
  if (stream) {
    res.writeHead(200, { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(replySse(reply));
  } else {
    res.writeHead(200, { ...headers, "content-type": "application/json" });
    res.end(replyJson(reply));
  }
}

function sendFault(res: ServerResponse, fault: Fault, stream: boolean): void {
  if (fault.kind === "hang") return;
  if (fault.kind === "malformed") {
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end("event: message_start\ndata: {this is not json\n\n");
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end("{this is not json");
    }
    return;
  }
  const extra = fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
  sendError(res, fault.status, fault.message, extra);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ type: "error", error: { type: errorType(status), message } }));
}

function describeFault(fault: Fault): string {
  return fault.kind === "status" ? `status ${fault.status}` : fault.kind;
}

function summary(reply: Reply): { stopReason: string; blocks: string[] } {
  return {
    stopReason: reply.stopReason,
    blocks: reply.content.map((b) =>
      b.type === "text" ? `text: ${b.text.slice(0, 120)}` : `tool_use: ${b.name}`,
    ),
  };
}

/**
 * Reads and checks a script file when the fake starts, so a broken script fails the run at once
 * instead of playing an empty story.
 * @throws {ScriptError} for text that is not JSON or a script that is not valid, its message naming the file.
 */
async function loadScriptFile(file: string): Promise<FakeScript> {
  const text = await readFile(file, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(`script file ${file}`, `not JSON: ${(error as Error).message}`);
  }
  try {
    return validateScript(value);
  } catch (error) {
    if (!(error instanceof ScriptError)) throw error;
    throw new ScriptError(error.path, `${error.detail} (in script file ${file}; see docs/fake-model.md)`);
  }
}
