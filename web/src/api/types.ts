/** Shapes of the control plane's read API as the dashboard uses them (docs/protocol.md, "The read API"). */

export const STATUSES = ["PENDING", "CLAIMED", "IN_PROGRESS", "DONE", "FAILED", "SKIPPED"] as const;
export type Status = (typeof STATUSES)[number];

/** A plan with its counts; money as six-decimal USD strings. */
export interface Plan {
  id: string;
  name: string;
  created_at: string;
  budget_usd: string | null;
  spent_usd: string;
  task_count: number;
  counts: Record<Status, number>;
}

/** The running attempt's last heartbeat. */
export interface Progress {
  turns?: number;
  last_tool?: string;
  phase?: string;
}

/** A task as `GET /api/v1/plans/{id}/tasks` sends it (the fields the dashboard shows). */
export interface Task {
  plan_id: string;
  id: string;
  status: Status;
  priority: string;
  description: string;
  dependencies: string[];
  version: number;
  attempts: number;
  max_attempts?: number;
  claimed_by: string | null;
  claimed_at: string | null;
  spent_usd: string;
  progress: Progress | null;
  previous_failure: Record<string, unknown> | null;
  verification: unknown;
  branch: string | null;
  commit: string | null;
  agent: string | null;
  model: string | null;
  not_before: string | null;
}

/** One audit event; on the stream it also names its worker. */
export interface AuditEvent {
  id: number;
  plan_id: string;
  task_id: string | null;
  event_type: string;
  payload: Record<string, unknown>;
  detail: unknown;
  created_at: string;
  worker_id?: string | null;
}

/** One attempt of a task (`GET /api/v1/plans/{p}/tasks/{t}`). */
export interface Attempt {
  attempt: number;
  worker_id: string | null;
  agent: string | null;
  model: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  outcome: string | null;
  reason: string | null;
  cost_usd: string | null;
}

export interface TaskDetail {
  task: Task;
  attempts: Attempt[];
  events: AuditEvent[];
}

export interface Pause {
  paused: boolean;
  paused_at: string | null;
  reason: string | null;
}

export interface Worker {
  worker_id: string;
  hostname: string;
  status: string;
  last_heartbeat: string;
  registered_at: string;
  agents: string[];
  tags: string[];
}

export type Role = "admin" | "read";
