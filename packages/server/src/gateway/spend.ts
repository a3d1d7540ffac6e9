/**
 * Per-key spend budgets: what each principal's calls cost (the engine prices usage from the model
 * catalog, `usage.cost` in US dollars), summed per window in a `SpendStore`, so a key over its budget
 * is refused before its next call reaches a model.
 */
import type { GatewayPrincipal } from './keys.ts';
import { memorySpendStore, type SpendStore } from './spend-store.ts';

export { MAX_TRACKED_PRINCIPALS } from './spend-store.ts';

/**
 * A key's spend budget: at most `usd` US dollars of model usage per `windowMs` (calls priced from the
 * catalog; a model the catalog has no price for costs nothing here). A window starts with the key's
 * first priced call.
 *
 * @example
 * ```ts
 * staticKeys({ 'sk-team-a-0123456789': { id: 'team-a', budget: { usd: 20, windowMs: 24 * 60 * 60_000 } } });
 * ```
 */
export interface SpendBudget {
  usd: number;
  windowMs: number;
}

/**
 * The spend so far in each principal's current window, kept in `store` (default: this process's
 * memory; a shared store makes one budget across instances). Calls still running when a budget is
 * reached are not stopped: their cost counts when they end, so a budget can be passed by what was
 * already in flight. Both methods throw what the store throws.
 *
 * @example
 * ```ts
 * const spend = createSpendTracker();
 * await spend.add(principal, 0.25);
 * await spend.refusal(principal); // { retryAfterSeconds, budget } once the budget is used up
 * ```
 */
export function createSpendTracker(store: SpendStore = memorySpendStore(), now: () => number = Date.now) {
  return {
    /** Adds a finished call's cost to the principal's window (nothing without a budget or a price). */
    async add(principal: GatewayPrincipal, usd: number | undefined): Promise<void> {
      const budget = budgetOf(principal);
      if (!budget || usd === undefined || !Number.isFinite(usd) || usd <= 0) return;
      await store.add(principal.id, usd, budget.windowMs, now());
    },
    /** When the principal's budget is used up: how long until its window starts again. */
    async refusal(principal: GatewayPrincipal): Promise<{ retryAfterSeconds: number; budget: SpendBudget } | undefined> {
      const budget = budgetOf(principal);
      if (!budget) return undefined;
      const at = now();
      const window = await store.get(principal.id, at);
      if ((window?.usd ?? 0) < budget.usd) return undefined;
      // A budget of 0 refuses every call, and no call opens a window: retry after a whole one.
      return { retryAfterSeconds: Math.max(1, Math.ceil(((window?.resetAt ?? at + budget.windowMs) - at) / 1000)), budget };
    },
  };
}

function budgetOf(principal: GatewayPrincipal): SpendBudget | undefined {
  const budget = principal.budget as SpendBudget | undefined;
  return budget && Number.isFinite(budget.usd) && budget.usd >= 0 && Number.isFinite(budget.windowMs) && budget.windowMs > 0 ? budget : undefined;
}
