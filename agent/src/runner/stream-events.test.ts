import type { AttemptProgress } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { StreamEvents } from "./stream-events.js";

const line = (event: unknown) => `${JSON.stringify(event)}\n`;

describe("StreamEvents", () => {
  it("counts assistant messages by id, keeps the last tool and the init session id, across chunk cuts", () => {
    const seen: AttemptProgress[] = [];
    const stream = new StreamEvents((p) => seen.push(p));
    const text = [
      "Now using node v20\n",
      line({ type: "system", subtype: "init", session_id: "s-1" }),
      line({ type: "assistant", message: { id: "m1", content: [{ type: "text", text: "hi" }] } }),
      line({ type: "assistant", message: { id: "m1", content: [{ type: "tool_use", name: "Write" }] } }),
      line({ type: "user", message: { content: [{ type: "tool_result" }] }, session_id: "other" }),
      line({ type: "assistant", message: { id: "m2", content: [{ type: "tool_use", name: "Bash" }] } }),
      "{not json\n",
      line({ type: "result", session_id: "s-1" }),
    ].join("");
    for (let i = 0; i < text.length; i += 7) stream.push(text.slice(i, i + 7));
    expect(stream.sessionId).toBe("s-1");
    expect(stream.progress).toEqual({ turns: 2, last_tool: "Bash" });
    expect(seen).toEqual([{ turns: 1 }, { turns: 1, last_tool: "Write" }, { turns: 2, last_tool: "Bash" }]);
  });

  it("keeps the reset time of a rate_limit_event that refused, not of one that allowed", () => {
    const stream = new StreamEvents();
    stream.push(line({ type: "rate_limit_event", rate_limit_info: { status: "allowed", resetsAt: 1 } }));
    expect(stream.limitResetsAt).toBeUndefined();
    stream.push(
      line({ type: "rate_limit_event", rate_limit_info: { status: "rejected", resetsAt: 1774447200 } }),
    );
    expect(stream.limitResetsAt).toEqual(new Date(1774447200_000));
  });
});
