/**
 * Per-key spend budgets: what each principal's calls cost (the engine prices usage from the model
 * catalog, `usage.cost` in US dollars), summed per window, so a key over its budget is refused
 * before its next call reaches a model.
 */
import type { GatewayPrincipal } from './keys.ts';

/**
 * A key's spend budget: at most `usd` US dollars of model usage per `windowMs` (calls priced from the
 * catalog; a model the catalog has no price for costs nothing here).
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

/** At most this many principals' windows are held; the oldest window is dropped past it (that key starts afresh). */
export const MAX_TRACKED_PRINCIPALS = 10_000;

/**
 * The spend so far in each principal's current window, in this process (a gateway run as several
 * instances holds a window per instance). Calls still running when a budget is reached are not
 * stopped: their cost counts when they end, so a budget can be passed by what was already in flight.
 *
 * @example
 * ```ts
 * const spend = createSpendTracker();
 * spend.add(principal, 0.25);
 * spend.refusal(principal); // { retryAfterSeconds } once the budget is used up
 * ```
 */
export function createSpendTracker(now: () => number = Date.now) {
  const windows = new Map<string, { start: number; usd: number }>();
  const current = (principal: GatewayPrincipal, budget: SpendBudget) => {
    const window = windows.get(principal.id);
    if (window && now() - window.start < budget.windowMs) return window;
    const fresh = { start: now(), usd: 0 };
    windows.delete(principal.id);
    if (windows.size >= MAX_TRACKED_PRINCIPALS) windows.delete(windows.keys().next().value as string);
    windows.set(principal.id, fresh);
    return fresh;
  };
  return {
    /** Adds a finished call's cost to the principal's window (nothing without a budget or a price). */
    add(principal: GatewayPrincipal, usd: number | undefined): void {
      const budget = budgetOf(principal);
      if (!budget || usd === undefined || !Number.isFinite(usd) || usd <= 0) return;
      current(principal, budget).usd += usd;
    },
    /** When the principal's budget is used up: how long until its window starts again. */
    refusal(principal: GatewayPrincipal): { retryAfterSeconds: number; budget: SpendBudget } | undefined {
      const budget = budgetOf(principal);
      if (!budget) return undefined;
      const window = current(principal, budget);
      if (window.usd < budget.usd) return undefined;
      return { retryAfterSeconds: Math.max(1, Math.ceil((window.start + budget.windowMs - now()) / 1000)), budget };
    },
  };
}

function budgetOf(principal: GatewayPrincipal): SpendBudget | undefined {
  const budget = principal.budget as SpendBudget | undefined;
  return budget && Number.isFinite(budget.usd) && budget.usd >= 0 && Number.isFinite(budget.windowMs) && budget.windowMs > 0 ? budget : undefined;
}
