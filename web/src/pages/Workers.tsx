import { api } from "../api/http.js";
import type { Pause, Worker } from "../api/types.js";
import { duration, since, when } from "../format.js";
import { Action, readOnlyReason } from "../ui/Action.js";
import { useNow, useResource, useStream, useThrottled } from "../ui/hooks.js";
import { Loading } from "../ui/Status.js";

/** Every registered worker (agents, tags, heartbeat age) and the operator's pause, with pause/resume. */
export function WorkersPage({ admin }: { admin: boolean }) {
  const data = useResource(() => api<{ workers: Worker[]; pause: Pause }>("workers"), "workers");
  const refetch = useThrottled(data.reload, 2000);
  useStream(
    "/api/v1/events/stream",
    (e) => (e.event_type.startsWith("worker.") || e.event_type === "CLAIM" ? refetch() : undefined),
    data.reload,
  );
  const now = useNow();
  if (!data.data) return <Loading error={data.error} what="workers" />;
  const { workers, pause } = data.data;
  const act = (verb: "pause" | "resume") => () =>
    api(`workers/${verb}`, { method: "POST", bearer: true }).then(data.reload);
  return (
    <section data-testid="workers-page">
      <h1>Workers</h1>
      <p data-testid="pause-state" data-paused={String(pause.paused)}>
        {pause.paused ? (
          <strong class="error">
            Paused since {when(pause.paused_at)}
            {pause.reason ? ` (${pause.reason})` : ""}: workers finish their tasks and claim nothing.
          </strong>
        ) : (
          "Not paused: workers claim ready tasks."
        )}
      </p>
      <div class="actions">
        {pause.paused ? (
          <Action
            label="Resume all"
            testid="action-resume"
            question="Resume every worker?"
            effect="Every worker may claim tasks again at once."
            disabledReason={readOnlyReason(admin)}
            run={act("resume")}
          />
        ) : (
          <Action
            label="Pause all"
            testid="action-pause"
            question="Pause every worker?"
            effect="Every worker, also one that registers later, finishes the task it runs and claims nothing until resumed."
            disabledReason={readOnlyReason(admin)}
            danger
            run={act("pause")}
          />
        )}
      </div>
      {workers.length === 0 ? (
        <p class="muted" data-testid="no-workers">
          No workers have registered yet. On a worker machine, <code>whilly-worker register</code> then{" "}
          <code>whilly-worker --connect {location.origin}</code> starts one (docs/worker.md in whilly's
          repository).
        </p>
      ) : (
        <div class="scroll-x">
          <table class="plain" data-testid="workers">
            <thead>
              <tr>
                <th scope="col">Worker</th>
                <th scope="col">Status</th>
                <th scope="col">Heartbeat</th>
                <th scope="col">Agents</th>
                <th scope="col">Tags</th>
              </tr>
            </thead>
            <tbody>
              {workers.map((w) => (
                <tr
                  key={w.worker_id}
                  data-testid="worker-row"
                  data-worker-id={w.worker_id}
                  data-status={w.status}
                >
                  <td>
                    <code>{w.worker_id}</code> <span class="muted small">{w.hostname}</span>
                  </td>
                  <td>{w.status}</td>
                  <td title={when(w.last_heartbeat)}>{duration(since(w.last_heartbeat, now))} ago</td>
                  <td>{w.agents.join(", ") || "–"}</td>
                  <td>{w.tags.join(", ") || "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
