import { api, path } from "../api/http.js";
import type { TaskDetail } from "../api/types.js";
import { duration, since, usd, when } from "../format.js";
import { planHref } from "../router.js";
import { Action, readOnlyReason } from "../ui/Action.js";
import { useNow, useResource, useStream, useThrottled } from "../ui/hooks.js";
import { Loading, StatusPill } from "../ui/Status.js";
import { step } from "../ui/task-columns.js";
import { Attempts, Events, Json } from "./task-parts.js";

interface Props {
  planId: string;
  taskId: string;
  admin: boolean;
}

/** One task: what it is, its attempts and events, its last failure and verification, and its actions. */
export function TaskPage({ planId, taskId, admin }: Props) {
  const route = `plans/${path(planId)}/tasks/${path(taskId)}`;
  const detail = useResource(() => api<TaskDetail>(route), route);
  const refetch = useThrottled(detail.reload, 500);
  useStream(
    `/api/v1/plans/${path(planId)}/events/stream`,
    (e) => e.task_id === taskId && refetch(),
    detail.reload,
  );
  const now = useNow();
  if (!detail.data) return <Loading error={detail.error} what={`task '${taskId}'`} />;
  const { task, attempts, events } = detail.data;
  const running = task.status === "CLAIMED" || task.status === "IN_PROGRESS";
  const act = (verb: "reset" | "release") => () =>
    api(`${route}/${verb}`, { method: "POST", bearer: true }).then(detail.reload);
  return (
    <section data-testid="task-page" data-task-id={task.id} data-status={task.status}>
      <p class="crumbs">
        <a href="#/">Plans</a> / <a href={planHref(planId)}>{planId}</a> /
      </p>
      <h1>
        {task.id} <StatusPill status={task.status} />
      </h1>
      <p>{task.description}</p>
      <dl class="facts">
        <dt>Priority</dt>
        <dd>{task.priority}</dd>
        <dt>Attempts</dt>
        <dd>
          {task.attempts}
          {task.max_attempts === undefined ? "" : ` of ${task.max_attempts}`}
        </dd>
        <dt>Cost</dt>
        <dd>{usd(task.spent_usd)}</dd>
        <dt>Worker</dt>
        <dd>{task.claimed_by ?? "–"}</dd>
        <dt>Agent</dt>
        <dd>{[task.agent, task.model].filter(Boolean).join(" / ") || "–"}</dd>
        {running && (
          <>
            <dt>Running for</dt>
            <dd>{duration(since(task.claimed_at, now))}</dd>
            <dt>Step</dt>
            <dd data-testid="task-step">{step(task) || "–"}</dd>
          </>
        )}
        <dt>Depends on</dt>
        <dd>{task.dependencies.join(", ") || "–"}</dd>
        <dt>Branch</dt>
        <dd data-testid="task-branch">{task.branch ?? "–"}</dd>
        <dt>Commit</dt>
        <dd data-testid="task-commit">
          <code>{task.commit ?? "–"}</code>
        </dd>
        {task.not_before && (
          <>
            <dt>Not before</dt>
            <dd>{when(task.not_before)}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <Action
          label="Reset"
          testid="action-reset"
          question={`Reset task ${task.id}?`}
          effect={`${task.id} goes from FAILED back to PENDING with a fresh set of attempts; its last failure and spend are kept.`}
          disabledReason={
            readOnlyReason(admin) ??
            (task.status === "FAILED" ? undefined : "only a FAILED task can be reset")
          }
          run={act("reset")}
        />
        <Action
          label="Release"
          testid="action-release"
          question={`Release task ${task.id}?`}
          effect={`${task.id} goes back to PENDING and ${task.claimed_by ?? "its worker"} loses its lease: its later reports are refused. The attempt is not given back.`}
          disabledReason={
            readOnlyReason(admin) ??
            (running ? undefined : "only a CLAIMED or IN_PROGRESS task can be released")
          }
          danger
          run={act("release")}
        />
      </div>
      {task.previous_failure && (
        <>
          <h2>Last failure</h2>
          <Json value={task.previous_failure} testid="task-failure" />
        </>
      )}
      {task.verification !== null && task.verification !== undefined && (
        <>
          <h2>Verification</h2>
          <Json value={task.verification} testid="task-verification" />
        </>
      )}
      <h2>Attempts</h2>
      <Attempts attempts={attempts} />
      <h2>Events</h2>
      <Events events={events} />
    </section>
  );
}
