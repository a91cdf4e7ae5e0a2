import {
  type AttemptFailure,
  type AttemptProgress,
  type EventRecord,
  formatUsd,
  type MicroUsd,
  type PlanOrigin,
  type PlanRecord,
  type Priority,
  parseUsd,
  readStoredInstructions,
  type TaskRecord,
  type TaskStatus,
  type Verification,
  type WorkerRecord,
} from "@whilly/core";
import type { events, plans, tasks, workers } from "@whilly/schema";

/** A `tasks` row as drizzle selects it. */
export type TaskRow = typeof tasks.$inferSelect;
/** A `plans` row as drizzle selects it. */
export type PlanRow = typeof plans.$inferSelect;

/** A `NUMERIC(14,6)` amount as micro-dollars; exact, since the column has six decimals. */
export function toMicroUsd(amount: string): MicroUsd {
  const micro = parseUsd(amount);
  if (micro === undefined) throw new Error(`unexpected NUMERIC amount from the database: ${amount}`);
  return micro;
}

/** Micro-dollars as the decimal string a `NUMERIC(14,6)` parameter takes. */
export function toNumeric(micro: MicroUsd): string {
  return formatUsd(micro);
}

/** The domain record for a task row. */
export function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    planId: row.planId,
    id: row.id,
    status: row.status as TaskStatus,
    priority: row.priority as Priority,
    description: row.description,
    dependencies: row.dependencies,
    keyFiles: row.keyFiles,
    acceptanceCriteria: row.acceptanceCriteria,
    testSteps: row.testSteps,
    prdRequirement: row.prdRequirement,
    version: row.version,
    extra: row.extra,
    claimedBy: row.claimedBy ?? undefined,
    claimedAt: row.claimedAt ?? undefined,
    leaseExpiresAt: row.leaseExpiresAt ?? undefined,
    attempts: row.attempts,
    spentMicroUsd: toMicroUsd(row.spentUsd),
    maxAttempts: row.maxAttempts ?? undefined,
    ...(row.agent === null ? {} : { agent: row.agent }),
    ...(row.model === null ? {} : { model: row.model }),
    ...(row.requiredTags.length === 0 ? {} : { requiredTags: row.requiredTags }),
    ...(row.fallbackAgent === null ? {} : { fallbackAgent: row.fallbackAgent }),
    notBefore: row.notBefore ?? undefined,
    lastFailure: row.lastFailure === null ? undefined : (row.lastFailure as unknown as AttemptFailure),
    verification: row.verification === null ? undefined : (row.verification as Verification),
    work:
      row.workBranch === null || row.workCommit === null
        ? undefined
        : { branch: row.workBranch, commit: row.workCommit },
    progress: row.progress === null ? undefined : (row.progress as AttemptProgress),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The domain record for a plan row. */
export function toPlanRecord(row: PlanRow): PlanRecord {
  return {
    id: row.id,
    name: row.name,
    budgetMicroUsd: row.budgetUsd === null ? undefined : toMicroUsd(row.budgetUsd),
    spentMicroUsd: toMicroUsd(row.spentUsd),
    reserveMicroUsd: row.reserveUsd === null ? undefined : toMicroUsd(row.reserveUsd),
    reservedMicroUsd: toMicroUsd(row.reservedUsd),
    verify: row.verify,
    setup: row.setup ?? undefined,
    maxAttempts: row.maxAttempts ?? undefined,
    ...(row.agent === null ? {} : { agent: row.agent }),
    ...(row.model === null ? {} : { model: row.model }),
    ...(row.fallbackAgents.length === 0 ? {} : { fallbackAgents: row.fallbackAgents }),
    ...storedInstructions(row.agentInstructions),
    ...(row.githubIssueRef === null ? {} : { githubIssueRef: row.githubIssueRef }),
    ...(row.origin === null ? {} : { origin: row.origin as unknown as PlanOrigin }),
    extra: row.extra,
    createdAt: row.createdAt,
  };
}

/** The domain record for an event row. */
export function toEventRecord(row: typeof events.$inferSelect): EventRecord {
  return {
    id: row.id,
    planId: row.planId,
    taskId: row.taskId ?? undefined,
    eventType: row.eventType,
    payload: row.payload,
    detail: row.detail ?? undefined,
    createdAt: row.createdAt,
  };
}

/** The domain record for a worker row. */
export function toWorkerRecord(row: typeof workers.$inferSelect): WorkerRecord {
  return {
    workerId: row.workerId,
    hostname: row.hostname,
    status: row.status === "offline" ? "offline" : "online",
    lastHeartbeat: row.lastHeartbeat,
    registeredAt: row.registeredAt,
    ...(row.agents === null
      ? {}
      : {
          capabilities: {
            agents: row.agents,
            tags: row.tags ?? [],
            ...(row.agent === null ? {} : { agent: row.agent }),
            ...(row.forceAgent === null ? {} : { forceAgent: row.forceAgent }),
          },
        }),
  };
}

/** A plan row's `agent_instructions` as the record's lines and kept values. */
function storedInstructions(
  value: PlanRow["agentInstructions"],
): Pick<PlanRecord, "agentInstructions" | "keptInstructions"> {
  const { lines, kept } = readStoredInstructions(value);
  return { agentInstructions: lines, keptInstructions: kept };
}
