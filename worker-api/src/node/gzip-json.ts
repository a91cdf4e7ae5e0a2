import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";

const gzip = promisify(gzipCallback);

/** JSON replies below this many bytes are sent as they are. */
export const GZIP_MIN_BYTES = 1024;

/**
 * Gzips a JSON reply of the control plane when the client accepts gzip. A plan's task list is about
 * 600 bytes a task, so a dashboard on a slow link would wait for most of a megabyte before it shows a
 * row of a big plan; gzipped it is a twentieth of that. Only `application/json` is touched: the event
 * streams (`text/event-stream`) must reach the client event by event, and the dashboard's files are
 * small. Workers compress on their own (Cloudflare's edge), so only the Node host calls this.
 * @returns `response` itself when it is not compressed.
 */
export async function gzipJson(request: Request, response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  const length = response.headers.get("content-length");
  if (
    !response.body ||
    request.method === "HEAD" ||
    !/^application\/json\b/i.test(type) ||
    response.headers.has("content-encoding") ||
    (length !== null && Number(length) < GZIP_MIN_BYTES) ||
    !acceptsGzip(request.headers.get("accept-encoding"))
  ) {
    return response;
  }
  // The whole body at once, not a CompressionStream: a stream's chunks each wait for a turn of an
  // event loop that a big read may keep busy, and a small reply would then end long after it began.
  const raw = Buffer.from(await response.arrayBuffer());
  if (raw.length < GZIP_MIN_BYTES) return new Response(raw, response);
  const body = await gzip(raw);
  const compressed = new Response(body, response);
  compressed.headers.set("content-length", String(body.length));
  compressed.headers.set("content-encoding", "gzip");
  const vary = compressed.headers.get("vary");
  if (!vary || !/\baccept-encoding\b/i.test(vary)) {
    compressed.headers.set("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
  }
  return compressed;
}

/** Whether an `Accept-Encoding` header admits gzip (listed, or `*`, without `q=0`). */
function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (name === "gzip" || name === "x-gzip") return allowed;
    if (name === "*") star = allowed;
  }
  return star;
}
