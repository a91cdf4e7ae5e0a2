import type { TaskWorkspaces } from "../workspace/types.js";

/**
 * Attempts that ended without a verdict (a provider limit, a shutdown, an agent that could not run) on
 * this machine, by workspaces and task id, with the agent's session: the task comes back with its attempt
 * given back and no new failure, and its next attempt here continues in the kept worktree and session.
 */
const interrupted = new WeakMap<TaskWorkspaces, Map<string, string | undefined>>();

/** Notes that `taskId`'s attempt stopped unjudged in its worktree, with the agent's session id. */
export function rememberInterrupted(ws: TaskWorkspaces, taskId: string, sessionId: string | undefined): void {
  const tasks = interrupted.get(ws) ?? new Map<string, string | undefined>();
  tasks.set(taskId, sessionId);
  interrupted.set(ws, tasks);
}

/** The interrupted attempt of `taskId`, forgotten as it is taken; `undefined` when there is none. */
export function takeInterrupted(
  ws: TaskWorkspaces,
  taskId: string,
): { sessionId: string | undefined } | undefined {
  const tasks = interrupted.get(ws);
  if (tasks === undefined || !tasks.has(taskId)) return undefined;
  const sessionId = tasks.get(taskId);
  tasks.delete(taskId);
  return { sessionId };
}
