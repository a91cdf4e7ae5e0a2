import {
  AGENT_UNAVAILABLE_REASON,
  AgentUnavailable,
  RATE_LIMITED_REASON,
  SHUTDOWN_REASON,
  type TaskPayload,
  WORKSPACE_UNAVAILABLE_REASON,
} from "@whilly/core";
import type { ReleasePause, ReleaseSpend, TaskClient } from "../client/task-client.js";
import type { Capabilities } from "./capabilities.js";
import type { PauseGate } from "./pause.js";
import { asError, spendOf } from "./replies.js";
import type { AgentAttempt, ProgressEvent, WorkerStats } from "./types.js";

/** What the worker loop's hand-backs use: its client, pause gate, agents, counters and stop. */
export type HandBackDeps = {
  readonly client: TaskClient;
  readonly gate: PauseGate;
  readonly capabilities: Capabilities | undefined;
  readonly stats: WorkerStats;
  readonly emit: (event: ProgressEvent) => void;
  readonly stopSignal: AbortSignal;
};

/**
 * How the worker loop gives a task back without a verdict: the machine cannot run the agent, the
 * provider's limit, a fault of git on this machine, or a stop (docs/worker.md).
 */
export function createHandBack(deps: HandBackDeps) {
  const { client, gate, stats, emit, stopSignal } = deps;

  /**
   * Hands `task` back (`shutdown` unless told otherwise); false when that was refused or unanswered.
   * The lease may already be gone, or the control plane down; the sweep returns the task either way.
   */
  async function releaseQuietly(
    task: TaskPayload,
    reason: string = SHUTDOWN_REASON,
    pause?: ReleasePause,
    spend?: ReleaseSpend,
  ): Promise<boolean> {
    try {
      await client.release(task, reason, pause, spend);
      stats.released++;
      emit({ kind: "released", task, reason });
      return true;
    } catch (error) {
      emit({ kind: "release_failed", task, error: asError(error) });
      return false;
    }
  }

  /**
   * Hands back an attempt that ended without a verdict; false when it has one to report.
   * @throws {AgentUnavailable} when the agent cannot run on this machine.
   */
  async function handedBack(task: TaskPayload, attempt: AgentAttempt): Promise<boolean> {
    if (attempt.unavailable) {
      // The machine's fault, not the task's: the task goes back with its attempt refunded, and this
      // worker stops, since every task would meet the same fault.
      await releaseQuietly(task, AGENT_UNAVAILABLE_REASON);
      throw new AgentUnavailable(attempt.unavailable.message, { hint: attempt.unavailable.hint });
    }
    if (attempt.limited) {
      await handBackLimited(task, attempt, attempt.limited);
      return true;
    }
    if (attempt.fault && !stopSignal.aborted) {
      // This machine's git, not the task: the attempt is given back with what the agent cost, and no
      // slot claims for a capped backoff, since the next task would likely meet the same fault.
      const until = gate.pause(undefined);
      const { message, hint } = attempt.fault;
      await releaseQuietly(task, WORKSPACE_UNAVAILABLE_REASON, { until, message }, spendOf(attempt));
      emit({ kind: "faulted", task, until, message, hint });
      return true;
    }
    // A stop after the agent finished (during the checks or the delivery) keeps what the agent cost.
    if (!attempt.aborted && !stopSignal.aborted) return false;
    await releaseQuietly(task, SHUTDOWN_REASON, undefined, spendOf(attempt));
    return true;
  }

  /**
   * The provider's limit, not the task's fault: the attempt is given back and every slot of this
   * process waits for the limit to pass, unless another agent is left to claim for meanwhile.
   */
  async function handBackLimited(
    task: TaskPayload,
    attempt: AgentAttempt,
    limited: NonNullable<AgentAttempt["limited"]>,
  ): Promise<void> {
    // Only a control plane that names the claim's agent routes by the agents a worker advertises; an
    // older one would hand this worker the paused agent's tasks again, so the whole worker pauses.
    const routed = typeof task.agent === "string" && task.agent !== "";
    const agent = typeof attempt.detail.agent === "string" ? attempt.detail.agent : undefined;
    const agentUntil =
      agent === undefined || !routed ? undefined : deps.capabilities?.pauseAgent(agent, limited.until);
    const until = agentUntil ?? gate.pause(limited.until);
    const { message } = limited;
    if (await releaseQuietly(task, RATE_LIMITED_REASON, { until, message })) stats.limited++;
    emit({ kind: "paused", task, until, message, ...(agentUntil === undefined ? {} : { agent }) });
  }

  return { releaseQuietly, handedBack };
}
