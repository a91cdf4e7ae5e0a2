import { api } from "../api/http.js";
import { type Plan, STATUSES } from "../api/types.js";
import { usd } from "../format.js";
import { planHref } from "../router.js";
import { useResource, useStream, useThrottled } from "../ui/hooks.js";
import { Loading } from "../ui/Status.js";

/** Every plan with its status counts, spend against budget and a progress bar; live on the global stream. */
export function PlansPage() {
  const plans = useResource(() => api<{ plans: Plan[] }>("plans").then((r) => r.plans), "plans");
  const refetch = useThrottled(plans.reload, 1000);
  useStream("/api/v1/events/stream", refetch, plans.reload);
  if (!plans.data) return <Loading error={plans.error} what="plans" />;
  if (plans.data.length === 0) {
    return (
      <p class="muted" data-testid="plans-empty">
        No plans yet: import one with <code>whilly plan import FILE</code>.
      </p>
    );
  }
  return (
    <section>
      <h1>Plans</h1>
      <ul class="cards" data-testid="plan-list">
        {plans.data.map((plan) => (
          <PlanCard key={plan.id} plan={plan} />
        ))}
      </ul>
    </section>
  );
}

function PlanCard({ plan }: { plan: Plan }) {
  const finished = plan.counts.DONE + plan.counts.SKIPPED;
  return (
    <li class="card" data-testid="plan-row" data-plan-id={plan.id}>
      <a class="card-title" href={planHref(plan.id)}>
        {plan.name} <span class="muted">{plan.name === plan.id ? "" : plan.id}</span>
      </a>
      <ProgressBar counts={plan.counts} total={plan.task_count} />
      <p class="counts">
        <span>
          {finished}/{plan.task_count} done
        </span>
        {STATUSES.filter((s) => plan.counts[s] > 0).map((s) => (
          <span key={s} class={`count s-${s}`} data-testid={`count-${s}`}>
            {s.replace("_", " ").toLowerCase()} {plan.counts[s]}
          </span>
        ))}
      </p>
      <Spend spent={plan.spent_usd} budget={plan.budget_usd} />
    </li>
  );
}

/** A stacked bar of the statuses, each a share of the plan's tasks. */
export function ProgressBar({ counts, total }: { counts: Plan["counts"]; total: number }) {
  const done = counts.DONE + counts.SKIPPED;
  return (
    <div
      class="bar"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-label="tasks done"
      data-testid="plan-progress"
    >
      {STATUSES.filter((s) => s !== "PENDING" && counts[s] > 0).map((s) => (
        <span key={s} class={`seg s-${s}`} style={{ width: `${(100 * counts[s]) / Math.max(1, total)}%` }} />
      ))}
    </div>
  );
}

/** Spend against budget; the budget's share as a thin bar, red once it is spent. */
export function Spend({ spent, budget }: { spent: string; budget: string | null }) {
  const share = budget === null ? null : Number(spent) / Math.max(Number(budget), 1e-9);
  return (
    <p class="spend" data-testid="plan-spend">
      {usd(spent)} spent{budget === null ? " (no budget)" : ` of ${usd(budget)}`}
      {share !== null && (
        <span class={`budget ${share >= 1 ? "over" : ""}`}>
          <span style={{ width: `${Math.min(100, share * 100)}%` }} />
        </span>
      )}
    </p>
  );
}
