import { appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Fault, planMove } from "./play.js";
import { errorBody, errorTypeOf, type Reply, replyEvents, replyJson, sseEvent } from "./reply.js";
import { readRequest } from "./request.js";
import { type FakeScript, ScriptError, validateScript } from "./script.js";

/** One request the fake saw. Never holds headers, so the API key stays out of logs. */
export type RequestLogEntry = {
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly kind: "agent" | "other";
  /** Codex's thread id, from its `x-codex-turn-metadata` header. */
  readonly threadId?: string | undefined;
  readonly taskId?: string | undefined;
  readonly generate?: string | undefined;
  /** The story played: a task id, `generate:<name>` or `default`. */
  readonly script?: string | undefined;
  readonly turn?: number | undefined;
  readonly attempt?: number | undefined;
  /** On a story's first turn only: the prompt it answers, at most 16 KiB. */
  readonly prompt?: string | undefined;
  readonly model?: string | undefined;
  readonly stream?: boolean | undefined;
  readonly tools?: readonly string[] | undefined;
  readonly toolOutputs?: readonly { readonly callId: string; readonly output: string }[] | undefined;
  /** The items answered: `function_call: exec_command {...}` or `message: ...`. */
  readonly reply?: readonly string[] | undefined;
  readonly fault?: string | undefined;
  /** e.g. `tools_not_offered: apply_patch` when the script calls a tool the CLI did not offer. */
  readonly warnings: readonly string[];
};

/** Options of {@link startFakeOpenAI}: a script object or a JSON file holding one. */
export type FakeOpenAIOptions = {
  readonly script?: FakeScript;
  readonly scriptFile?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
  /** A JSONL file to append one {@link RequestLogEntry} per request to, or a callback. */
  readonly log?: string | ((entry: RequestLogEntry) => void);
};

/** A running fake. */
export type FakeOpenAI = {
  /** `http://127.0.0.1:PORT/v1`, the provider's `base_url` in Codex's config. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, oldest first. */
  requests(): RequestLogEntry[];
  /** Replaces the script; fault counters start over. */
  setScript(script: FakeScript): void;
  /** Stops listening and drops open connections, including hung ones. */
  close(): Promise<void>;
};

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Starts a scripted fake of the OpenAI Responses API on loopback: `POST /v1/responses` (streaming SSE
 * or plain JSON) answered from the script (see {@link FakeScript}); anything else is a 404 the log
 * records. Codex 0.171 makes one such request per model response.
 * @throws {ScriptError} for an invalid script (naming the file for a `scriptFile`); the read error for
 *   a `scriptFile` that cannot be read.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  let script =
    options.scriptFile !== undefined
      ? await loadScriptFile(options.scriptFile)
      : validateScript(options.script ?? {});
  let served = new Map<string, number>();
  const entries: RequestLogEntry[] = [];
  let responses = 0;

  const record = (entry: RequestLogEntry) => {
    entries.push(entry);
    if (typeof options.log === "function") options.log(entry);
    else if (typeof options.log === "string") appendFileSync(options.log, `${JSON.stringify(entry)}\n`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendError(res, 500, `fake-openai crashed: ${String(error)}`, "server_error", null);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date().toISOString();
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    if (method !== "POST" || (path !== "/v1/responses" && path !== "/responses")) {
      record({ at, method, path, kind: "other", warnings: [] });
      sendError(res, 404, `fake-openai has no route ${method} ${path}`, "invalid_request_error", null);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      record({ at, method, path, kind: "other", warnings: ["bad_json"] });
      sendError(res, 400, `request body is not JSON: ${String(error)}`, "invalid_request_error", null);
      return;
    }
    const facts = readRequest(body);
    const threadId = threadOf(req);
    responses += 1;
    const responseId = `resp_${String(responses).padStart(4, "0")}`;
    const move = planMove({ script, facts, responseId, sessionKey: threadId ?? facts.taskId ?? "-", served });
    const base = {
      at,
      method,
      path,
      kind: "agent" as const,
      threadId,
      taskId: facts.taskId,
      generate: facts.generate,
      script: move.script,
      turn: facts.turn,
      attempt: facts.attempt,
      ...(facts.turn === 0 ? { prompt: facts.prompt } : {}),
      model: facts.model,
      stream: facts.stream,
      tools: facts.toolNames,
      toolOutputs: facts.toolOutputs,
    };
    if (move.type === "fault") {
      record({ ...base, fault: describeFault(move.fault), warnings: [] });
      sendFault(res, move.fault, responseId);
      return;
    }
    const warnings = move.reply.items.flatMap((i) =>
      i.type === "function_call" && !facts.toolNames.includes(i.name) ? [`tools_not_offered: ${i.name}`] : [],
    );
    record({ ...base, reply: summary(move.reply), warnings });
    if (move.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, move.delayMs).unref());
    if (facts.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(replyEvents(move.reply).join(""));
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end(replyJson(move.reply));
    }
  }

  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    port,
    requests: () => [...entries],
    setScript(next) {
      script = validateScript(next);
      served = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Codex names its thread in the `x-codex-turn-metadata` header (JSON); `undefined` without one. */
function threadOf(req: IncomingMessage): string | undefined {
  const header = req.headers["x-codex-turn-metadata"];
  if (typeof header !== "string") return undefined;
  try {
    const meta = JSON.parse(header) as { thread_id?: unknown; session_id?: unknown };
    const id = meta.thread_id ?? meta.session_id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
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

const USAGE_LIMIT_MESSAGE = "The usage limit has been reached";

function sendFault(res: ServerResponse, fault: Fault, responseId: string): void {
  if (fault.kind === "hang") return;
  if (fault.kind === "status") {
    const type = fault.type ?? errorTypeOf(fault.status);
    const message =
      fault.message ??
      (type === "usage_limit_reached" ? USAGE_LIMIT_MESSAGE : `fake injected HTTP ${fault.status}`);
    const headers = fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
    const resets = { resetsInSeconds: fault.resetsInSeconds, resetsAt: fault.resetsAt };
    sendError(res, fault.status, message, type, fault.code ?? null, resets, headers);
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const created = sseEvent({ type: "response.created", response: { id: responseId, status: "in_progress" } });
  if (fault.kind === "malformed") {
    res.end(`${created}event: response.output_item.done\ndata: {this is not json\n\n`);
    return;
  }
  if (fault.kind === "failed") {
    const error = {
      code: fault.code ?? "server_error",
      message: fault.message ?? "fake injected response.failed",
    };
    res.end(
      `${created}${sseEvent({ type: "response.failed", response: { id: responseId, status: "failed", error } })}`,
    );
    return;
  }
  // `cut`: half an event, then the connection drops.
  res.write(`${created}event: response.output_item.added\ndata: {"type":"response.output_item.ad`);
  setTimeout(() => res.destroy(), 20).unref();
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  resets: { resetsInSeconds?: number | undefined; resetsAt?: number | undefined } = {},
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(errorBody({ message, type, code, ...resets }));
}

function describeFault(fault: Fault): string {
  return fault.kind === "status" ? `status ${fault.status}` : fault.kind;
}

function summary(reply: Reply): string[] {
  return reply.items.map((i) =>
    i.type === "function_call"
      ? `function_call: ${i.name} ${i.arguments.slice(0, 200)}`
      : `message: ${i.text.slice(0, 120)}`,
  );
}

/**
 * Reads and checks a script file when the fake starts, so a broken script fails at once.
 * @throws {ScriptError} for text that is not JSON or a script that is not valid, naming the file.
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
    throw new ScriptError(error.path, `${error.detail} (in script file ${file})`);
  }
}
