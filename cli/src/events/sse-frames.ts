/** One server-sent event: its `id:`, `event:` (absent for a plain message) and `data:` lines joined. */
export type SseMessage = { readonly id?: string; readonly event?: string; readonly data: string };

type Fields = { id?: string; event?: string; data: string[] };

/**
 * Splits a `text/event-stream` body into messages as chunks arrive (per the HTML standard's parsing
 * rules, reduced to what whilly's control plane sends): comment lines (`: keep-alive`) and the `retry:`
 * field are skipped; CRLF and LF line ends both work.
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let fields: Fields = { data: [] };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.search(/\r?\n/); end >= 0; end = buffer.search(/\r?\n/)) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer[end] === "\r" ? 2 : 1));
      if (line !== "") {
        addField(fields, line);
        continue;
      }
      if (fields.data.length > 0 || fields.event !== undefined)
        yield { ...fields, data: fields.data.join("\n") };
      fields = { data: [] };
    }
  }
}

function addField(fields: Fields, line: string): void {
  if (line.startsWith(":")) return;
  const colon = line.indexOf(":");
  const name = colon < 0 ? line : line.slice(0, colon);
  const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
  if (name === "data") fields.data.push(value);
  else if (name === "id") fields.id = value;
  else if (name === "event") fields.event = value;
}
