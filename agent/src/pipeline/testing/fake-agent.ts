import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AttemptFailure, AttemptProgress, TaskPayload } from "@whilly/core";
import type { AgentAttempt, RunAgent } from "../../worker/types.js";

/** What one call of the fake agent was given. */
export type AgentCall = {
  readonly taskId: string;
  readonly cwd: string;
  readonly resumeSessionId: string | undefined;
  readonly previousFailure: AttemptFailure | undefined;
};

/** What the fake agent does on a call: files to write in its directory, and its verdict. */
export type FakeTurn = {
  readonly files?: Record<string, string>;
  readonly ok?: boolean;
  readonly reason?: string;
  readonly limited?: AgentAttempt["limited"];
  readonly progress?: AttemptProgress;
};

/**
 * A {@link RunAgent} that writes files with fs instead of running a model: `script(task, call number)`
 * says what it does; every call is recorded in `calls`. Session ids are `session-<task>-<n>`.
 */
export function fakeAgent(script: (task: TaskPayload, call: number) => FakeTurn): {
  run: RunAgent;
  calls: AgentCall[];
} {
  const calls: AgentCall[] = [];
  const run: RunAgent = async ({ task, cwd, resumeSessionId, previousFailure, onActivity }) => {
    calls.push({ taskId: task.id, cwd, resumeSessionId, previousFailure });
    const turn = script(task, calls.filter((c) => c.taskId === task.id).length);
    for (const [path, text] of Object.entries(turn.files ?? {})) writeFileSync(join(cwd, path), text);
    if (turn.progress) onActivity?.(turn.progress);
    const ok = turn.ok ?? true;
    const reason = ok ? undefined : (turn.reason ?? "no_marker");
    const sessionId = `session-${task.id}-${calls.length}`;
    return {
      ok,
      reason,
      costMicroUsd: 1000,
      aborted: false,
      detail: {
        ok,
        ...(reason ? { reason, message: `agent said ${reason}` } : {}),
        output_tail: "agent output",
      },
      sessionId,
      ...(turn.limited ? { limited: turn.limited } : {}),
    };
  };
  return { run, calls };
}

/** A claimed task payload with the given fields. */
export function taskPayload(id: string, fields: Partial<TaskPayload> = {}): TaskPayload {
  return {
    plan_id: "p",
    id,
    status: "IN_PROGRESS",
    priority: "medium",
    description: `Do ${id}`,
    dependencies: [],
    key_files: [],
    acceptance_criteria: [],
    test_steps: [],
    prd_requirement: "",
    version: 2,
    attempts: 1,
    claimed_by: "w1",
    lease_expires_at: null,
    ...fields,
  };
}
