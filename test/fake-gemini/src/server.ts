import { appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorBody, type Move, planMove, replyChunks, replyJson } from "./play.js";
import { readGeminiRequest } from "./request.js";
import { type FakeGeminiScript, GeminiScriptError, validateGeminiScript } from "./script.js";

/** One request the fake saw. Never holds headers, so the API key stays out of logs. */
export type GeminiRequestLogEntry = {
  readonly at: string;
  readonly method: string;
  readonly path: string;
  /** `agent`: a streaming turn (plays the script); `side`: a non-streaming call; `count`: countTokens. */
  readonly kind: "agent" | "side" | "count" | "other";
  readonly model?: string | undefined;
  readonly taskId?: string | undefined;
  /** The attempt, from the prompt's `Attempt: N of M` line (1 when none). */
  readonly attempt?: number | undefined;
  /** The story played: a task id, `generate:<name>` or `default`. */
  readonly script?: string | undefined;
  readonly turn?: number | undefined;
  /** On a session's first turn only: the prompt it answers (at most 16 KiB). */
  readonly prompt?: string | undefined;
  readonly tools?: readonly string[] | undefined;
  readonly toolResults?: readonly { readonly name: string; readonly text: string }[] | undefined;
  /** What was answered: `text: ...` and `call: <name>` per part. */
  readonly reply?: readonly string[] | undefined;
  readonly fault?: string | undefined;
  /** e.g. `tools_not_offered: write_file` when the script calls a tool the CLI did not offer. */
  readonly warnings: readonly string[];
};

/** Options of {@link startFakeGemini}: a script object or a JSON file holding one. */
export type FakeGeminiOptions = {
  readonly script?: FakeGeminiScript;
  readonly scriptFile?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** A JSONL file to append one {@link GeminiRequestLogEntry} per request to, or a callback. */
  readonly log?: string | ((entry: GeminiRequestLogEntry) => void);
};

/** A running fake. */
export type FakeGemini = {
  /** `http://127.0.0.1:PORT`, the value for `GOOGLE_GEMINI_BASE_URL`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, oldest first. */
  requests(): GeminiRequestLogEntry[];
  /** Replaces the script; fault counters start over. */
  setScript(script: FakeGeminiScript): void;
  /** Stops listening and drops open connections, including hung ones. */
  close(): Promise<void>;
};

/** `/v1beta/models/<model>:<method>`, the routes of the Gemini API the CLI calls. */
const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;
const DEFAULT_SIDE_TEXT = '{"next_speaker": "user", "reasoning": "The fake model has finished its turn."}';

/**
 * Starts a scripted fake of the Gemini API on 127.0.0.1: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * (the agent's turns, from the script), `:generateContent` (side calls, answered with `side_text`) and
 * `:countTokens`. See {@link FakeGeminiScript} for the script format.
 * @throws {GeminiScriptError} for an invalid script (naming the file for a `scriptFile`); the read error for
 *   a `scriptFile` that cannot be read.
 */
export async function startFakeGemini(options: FakeGeminiOptions): Promise<FakeGemini> {
  let script =
    options.scriptFile !== undefined
      ? await loadScriptFile(options.scriptFile)
      : validateGeminiScript(options.script ?? {});
  let counts = new Map<string, number>();
  const entries: GeminiRequestLogEntry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let replies = 0;

  const record = (entry: GeminiRequestLogEntry) => {
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date().toISOString();
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const route = ROUTE.exec(path);
    if (method !== "POST" || route === null) {
      record({ at, method, path, kind: "other", warnings: [] });
      sendJson(res, 404, {
        error: { code: 404, message: `fake-gemini has no route ${method} ${path}`, status: "NOT_FOUND" },
      });
      return;
    }
    const [, model = "", call] = route;
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      record({ at, method, path, kind: "other", model, warnings: ["bad_json"] });
      sendJson(res, 400, {
        error: {
          code: 400,
          message: `request body is not JSON: ${String(error)}`,
          status: "INVALID_ARGUMENT",
        },
      });
      return;
    }
    if (call === "countTokens") {
      record({ at, method, path, kind: "count", model, warnings: [] });
      sendJson(res, 200, { totalTokens: 1200 });
      return;
    }
    replies += 1;
    const id = `fake${String(replies).padStart(4, "0")}`;
    if (call === "generateContent") {
      const text = script.side_text ?? DEFAULT_SIDE_TEXT;
      record({ at, method, path, kind: "side", model, reply: [`text: ${text.slice(0, 120)}`], warnings: [] });
      sendJson(
        res,
        200,
        replyJson(
          [{ text }],
          { prompt_tokens: 100, candidates_tokens: 10, cached_tokens: 0, thoughts_tokens: 0 },
          model,
          id,
        ),
      );
      return;
    }
    await answerTurn(res, body, { at, method, path, model, id });
  }

  /** Plays the script's turn for one streaming request (or its fault), and logs it. */
  async function answerTurn(
    res: ServerResponse,
    body: unknown,
    request: { at: string; method: string; path: string; model: string; id: string },
  ): Promise<void> {
    const { at, method, path, model, id } = request;
    const facts = readGeminiRequest(body);
    const move = planMove(script, facts, counts);
    const base = {
      at,
      method,
      path,
      kind: "agent" as const,
      model,
      taskId: facts.taskId,
      attempt: facts.attempt,
      script: move.script,
      turn: facts.turn,
      ...(facts.turn === 0 ? { prompt: facts.prompt } : {}),
      tools: facts.toolNames,
      toolResults: facts.toolResults,
    };
    if (move.type === "fault") {
      record({
        ...base,
        fault: move.fault.kind === "status" ? `status ${move.fault.status}` : move.fault.kind,
        warnings: [],
      });
      sendFault(res, move, model, id);
      return;
    }
    const reply = move.parts.map((p) =>
      "text" in p ? `text: ${p.text.slice(0, 120)}` : `call: ${p.functionCall.name}`,
    );
    record({ ...base, reply, warnings: move.missingTools.map((n) => `tools_not_offered: ${n}`) });
    if (move.delayMs > 0) await wait(move.delayMs);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(replyChunks(move.parts, move.usage, model, id).map(sse).join(""));
  }

  function sendFault(
    res: ServerResponse,
    move: Extract<Move, { type: "fault" }>,
    model: string,
    id: string,
  ): void {
    const { fault } = move;
    if (fault.kind === "hang") return;
    if (fault.kind === "status") {
      res.writeHead(fault.status, { "content-type": "application/json" }).end(errorBody(fault));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (fault.kind === "malformed") {
      res.end("data: {this is not json\n\n");
      return;
    }
    // A cut: the first chunk of an answer, then the connection drops.
    const usage = { prompt_tokens: 0, candidates_tokens: 0, cached_tokens: 0, thoughts_tokens: 0 };
    const [first] = replyChunks([{ text: "Let me start on th" }, { text: "at." }], usage, model, id);
    res.write(sse(first));
    const timer = setTimeout(() => res.socket?.destroy(), 50);
    timers.add(timer);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { code: 500, message: `fake-gemini crashed: ${String(error)}` } });
      else res.destroy();
    });
  });
  server.listen(options.port ?? 0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () => [...entries],
    setScript(next) {
      script = validateGeminiScript(next);
      counts = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sse(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Reads and checks a script file when the fake starts, so a broken script fails at once.
 * @throws {GeminiScriptError} for text that is not JSON or a script that is not valid, naming the file.
 */
async function loadScriptFile(file: string): Promise<FakeGeminiScript> {
  const text = await readFile(file, "utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GeminiScriptError(`script file ${file}`, `not JSON: ${(error as Error).message}`);
  }
  try {
    return validateGeminiScript(value);
  } catch (error) {
    if (!(error instanceof GeminiScriptError)) throw error;
    throw new GeminiScriptError(error.path, `${error.detail} (in script file ${file})`);
  }
}
