import type { Attempt, AuditEvent } from "../api/types.js";
import { duration, filledEntries, usd, when } from "../format.js";
import { foldHeartbeats } from "../live/reduce.js";

/** A JSON value for people: strings as text (an output tail keeps its lines), the rest indented; empty fields left out. */
export function Json({ value, testid }: { value: unknown; testid?: string }) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return (
      <dl class="json" data-testid={testid}>
        {filledEntries(value as Record<string, unknown>).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{inline(v) ? String(v) : <pre>{text(v)}</pre>}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return <pre data-testid={testid}>{text(value)}</pre>;
}

/** A short scalar shown on its line; multi-line text and objects get a block. */
function inline(v: unknown): boolean {
  return v === null || (typeof v !== "object" && !(typeof v === "string" && v.includes("\n")));
}

function text(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

/** A task's attempts, newest first: agent, model, outcome and reason, cost, duration. */
export function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p class="muted">No attempts yet.</p>;
  return (
    <div class="scroll-x">
      <table class="plain" data-testid="attempts">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Agent</th>
            <th scope="col">Outcome</th>
            <th scope="col">Cost</th>
            <th scope="col">Duration</th>
            <th scope="col">Worker</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {[...attempts].reverse().map((a) => (
            <tr key={a.attempt} data-testid="attempt-row" data-attempt={a.attempt}>
              <td>{a.attempt}</td>
              <td>{[a.agent, a.model].filter(Boolean).join(" / ") || "–"}</td>
              <td>
                {a.outcome ?? "running"}
                {a.reason ? <span class="muted"> ({a.reason})</span> : null}
              </td>
              <td>{usd(a.cost_usd)}</td>
              <td>{duration(a.duration_ms)}</td>
              <td>{a.worker_id ?? "–"}</td>
              <td>{when(a.started_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The task's audit events, newest first (the last 200 after folding runs of heartbeats). */
export function Events({ events }: { events: AuditEvent[] }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  const shown = foldHeartbeats(events).slice(-200).reverse();
  return (
    <ol class="events" data-testid="task-events">
      {shown.map(({ event: e, folded }) => (
        <li key={e.id} data-testid="task-event" data-event-type={e.event_type}>
          <span class="muted small">{when(e.created_at)}</span> <strong>{e.event_type}</strong>{" "}
          {folded > 0 && <span class="muted small">(latest of {folded + 1}) </span>}
          <code class="small">{summary(e.payload)}</code>
        </li>
      ))}
    </ol>
  );
}

/** A payload's fields on one line, long values cut. */
function summary(payload: Record<string, unknown>): string {
  return Object.entries(payload ?? {})
    .map(([k, v]) => {
      const s = typeof v === "string" ? v : JSON.stringify(v);
      return `${k}=${s.length > 60 ? `${s.slice(0, 59)}…` : s}`;
    })
    .join(" ");
}
