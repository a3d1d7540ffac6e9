/**
 * Token usage. A field the provider did not report stays undefined: a made-up 0
 * would turn "unknown" into a wrong number in every sum and bill.
 *
 * @example
 * const usage: Usage = { inputTokens: 1200, outputTokens: 300, cost: 0.0042 };
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  totalTokens?: number;
  /** In US dollars, when the model's prices are known. */
  cost?: number;
}

/**
 * The fields a `Usage` can carry (token counts and cost).
 *
 * @example
 * for (const key of USAGE_KEYS) if (usage[key] !== undefined) console.log(key, usage[key]);
 */
export const USAGE_KEYS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'totalTokens',
  'cost',
] as const satisfies readonly (keyof Usage)[];

/**
 * Sums usages field by field; a field stays undefined only if every operand left it undefined.
 *
 * @example
 * const total = addUsage(step1.usage, step2.usage); // { inputTokens: 30, outputTokens: 12, ... }
 */
export function addUsage(...usages: (Usage | undefined)[]): Usage {
  const out: Usage = {};
  for (const usage of usages) {
    if (!usage) continue;
    for (const key of USAGE_KEYS) {
      const value = usage[key];
      if (value === undefined) continue;
      out[key] = (out[key] ?? 0) + value;
    }
  }
  return out;
}

/**
 * Overlays a later report on an earlier one: fields the later report carries win.
 *
 * @example
 * mergeUsage({ inputTokens: 12 }, { outputTokens: 40 }); // { inputTokens: 12, outputTokens: 40 }
 */
export function mergeUsage(base: Usage, update: Usage): Usage {
  const out: Usage = { ...base };
  for (const key of USAGE_KEYS) if (update[key] !== undefined) out[key] = update[key];
  return out;
}
