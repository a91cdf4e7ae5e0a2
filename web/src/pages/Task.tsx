/** Placeholder until the page lands. */
export function TaskPage(_: Record<string, unknown>) {
  return <p class="muted">Coming soon.</p>;
}
