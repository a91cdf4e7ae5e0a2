import { afterEach, beforeEach, describe } from "vitest";
import { describeAttemptCostContract } from "./contract/attempt-cost.contract.js";
import { describeBlockedContract } from "./contract/blocked.contract.js";
import { describeBudgetContract } from "./contract/budget.contract.js";
import { describeClaimLostContract } from "./contract/claim-lost.contract.js";
import { describeClaimContract } from "./contract/claims.contract.js";
import { describeCreateOnlyContract } from "./contract/create-only.contract.js";
import { describeEventContract } from "./contract/events.contract.js";
import { describeFencingContract } from "./contract/fencing.contract.js";
import type { ContractContext } from "./contract/helpers.contract.js";
import { describeKeyFileContract } from "./contract/key-files.contract.js";
import { describeLeaseContract } from "./contract/leases.contract.js";
import { describeMoneyContract } from "./contract/money.contract.js";
import { describeOneStatementContract } from "./contract/one-statement.contract.js";
import { describeOperatorActionContract } from "./contract/operator-actions.contract.js";
import { describeOriginContract } from "./contract/origin.contract.js";
import { describePlanContract } from "./contract/plans.contract.js";
import { describeReadTokenContract } from "./contract/read-tokens.contract.js";
import { describeRefundContract } from "./contract/refund.contract.js";
import { describeRetryContract } from "./contract/retries.contract.js";
import { describeRoutingContract } from "./contract/routing.contract.js";
import { describeTaskEventContract } from "./contract/task-events.contract.js";
import { describeTextContract } from "./contract/text.contract.js";
import { describeWorkContract } from "./contract/work.contract.js";
import { describeWorkerContract } from "./contract/workers.contract.js";
import type { Store } from "./store.js";

/** The contract's groups, by name, in the order the suite runs them. */
const GROUPS = {
  plans: describePlanContract,
  origin: describeOriginContract,
  createOnly: describeCreateOnlyContract,
  claims: describeClaimContract,
  fencing: describeFencingContract,
  money: describeMoneyContract,
  budget: describeBudgetContract,
  attemptCost: describeAttemptCostContract,
  oneStatement: describeOneStatementContract,
  blocked: describeBlockedContract,
  leases: describeLeaseContract,
  claimLost: describeClaimLostContract,
  events: describeEventContract,
  text: describeTextContract,
  workers: describeWorkerContract,
  readTokens: describeReadTokenContract,
  refund: describeRefundContract,
  retries: describeRetryContract,
  keyFiles: describeKeyFileContract,
  work: describeWorkContract,
  routing: describeRoutingContract,
  operatorActions: describeOperatorActionContract,
  taskEvents: describeTaskEventContract,
} satisfies Record<string, (ctx: ContractContext) => void>;

/** The name of one group of the contract. */
export type ContractGroup = keyof typeof GROUPS;

/**
 * The store's one behavioural suite: every driver file runs it unchanged. `openFresh` returns a store
 * over empty tables before each test; the suite closes it after. Concurrency cases run on every driver:
 * on Postgres they race real connections, on PGlite they must still hold when serialized. `only`
 * runs some groups (for a store that wraps a driver the whole suite already covers).
 */
export function describeTaskStoreContract(
  name: string,
  openFresh: () => Promise<Store>,
  only?: readonly ContractGroup[],
): void {
  describe(`TaskStore contract (${name})`, () => {
    let current: Store | undefined;
    const ctx: ContractContext = {
      get store(): Store {
        if (!current) throw new Error("the store is opened in beforeEach");
        return current;
      },
    };
    beforeEach(async () => {
      current = await openFresh();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    for (const [group, describeGroup] of Object.entries(GROUPS))
      if (only === undefined || only.includes(group as ContractGroup)) describeGroup(ctx);
  });
}
