import { useEffect, useState } from "preact/hooks";

/** The dashboard's pages, from the URL's hash (`#/`, `#/plans/<id>`, `#/plans/<id>/tasks/<task>`, `#/workers`). */
export type Route =
  | { page: "plans" }
  | { page: "plan"; planId: string }
  | { page: "task"; planId: string; taskId: string }
  | { page: "workers" };

/** Reads a hash; ids are percent-encoded segments. Anything unknown is the plans page. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decode);
  if (parts[0] === "workers") return { page: "workers" };
  if (parts[0] === "plans" && parts[1] !== undefined) {
    if (parts[2] === "tasks" && parts[3] !== undefined)
      return { page: "task", planId: parts[1], taskId: parts[3] };
    return { page: "plan", planId: parts[1] };
  }
  return { page: "plans" };
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The hash of a plan's page. */
export const planHref = (planId: string) => `#/plans/${encodeURIComponent(planId)}`;

/** The hash of a task's page. */
export const taskHref = (planId: string, taskId: string) =>
  `${planHref(planId)}/tasks/${encodeURIComponent(taskId)}`;

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/**
 * A `whilly run --ui` link's hash, `#signin=<code>` with an optional `&plan=<id>`: the one-time code,
 * and the hash to show once signed in (the run's plan, else the plans page). `undefined` for any other hash.
 */
export function parseSignInLink(hash: string): { code: string; next: string } | undefined {
  const match = /^#signin=([^&]+)(?:&plan=([^&]+))?/.exec(hash);
  if (!match?.[1]) return undefined;
  return { code: decode(match[1]), next: match[2] ? planHref(decode(match[2])) : "#/" };
}
