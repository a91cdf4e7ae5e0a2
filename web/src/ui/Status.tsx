import { messageOf } from "../api/errors.js";

/** A loading line or an error with the server's detail and hint. */
export function Loading({ error, what }: { error: unknown; what: string }) {
  if (error !== undefined) {
    return (
      <p class="error" role="alert" data-testid="load-error">
        Could not load {what}: {messageOf(error)}
      </p>
    );
  }
  return (
    <p class="muted" data-testid="loading">
      Loading {what}…
    </p>
  );
}

/** A task status as a coloured pill. */
export function StatusPill({ status }: { status: string }) {
  return <span class={`pill s-${status}`}>{status.replace("_", " ")}</span>;
}
