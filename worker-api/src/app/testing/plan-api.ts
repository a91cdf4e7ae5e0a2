import type { RouteReply } from "./route-harness.js";

/**
 * Sends `body` (JSON-encoded unless a string) to the app with `token` as its bearer.
 * @returns the reply's status and parsed body (undefined when empty).
 */
export async function sendJson(
  a: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<RouteReply> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await a.request(path, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A plan made from `ref` (default acme/widgets/42), with two tasks. */
export function issuePlan(planId = "issue-acme-widgets-42", ref = "acme/widgets/42") {
  return {
    project: "Widgets",
    plan_id: planId,
    github_issue_ref: ref,
    origin: {
      kind: "github_issue",
      reference: ref,
      url: `https://github.com/${ref.replace(/\/(\d+)$/, "/issues/$1")}`,
    },
    tasks: [
      { id: "A", status: "pending", priority: "high", description: "first", test_steps: ["npm test"] },
      { id: "B", status: "pending", priority: "high", description: "second", dependencies: ["A"] },
    ],
  };
}
