/** Placeholder until the page lands. */
export function PlanPage(_: Record<string, unknown>) {
  return <p class="muted">Coming soon.</p>;
}
