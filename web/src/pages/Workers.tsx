/** Placeholder until the page lands. */
export function WorkersPage(_: Record<string, unknown>) {
  return <p class="muted">Coming soon.</p>;
}
