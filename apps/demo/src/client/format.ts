import type { Usage } from '@parlance/protocol';

const count = new Intl.NumberFormat('en');

/** "1,234 in · 56 out · $0.00042": what a message cost, when the provider said. */
export function formatUsage(usage: Usage | undefined): string | undefined {
  if (!usage) return undefined;
  const bits: string[] = [];
  if (usage.inputTokens !== undefined) bits.push(`${count.format(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) bits.push(`${count.format(usage.outputTokens)} out`);
  if (usage.reasoningTokens) bits.push(`${count.format(usage.reasoningTokens)} reasoning`);
  if (usage.cost !== undefined) bits.push(formatCost(usage.cost));
  return bits.length ? bits.join(' · ') : undefined;
}

export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (dollars < 0.000001) return '<$0.000001';
  if (dollars < 0.01) return `$${dollars.toPrecision(2)}`;
  return `$${dollars.toFixed(4)}`;
}

/** Tool arguments and results, readable. */
export function formatJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
