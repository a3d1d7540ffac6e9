import { expect, it } from 'vitest';
import { addUsage, mergeUsage } from './usage.ts';

it('addUsage sums steps and keeps unreported fields undefined', () => {
  expect(addUsage({ inputTokens: 1, cost: 0.5 }, undefined, { inputTokens: 2, outputTokens: 3 })).toEqual({
    inputTokens: 3,
    outputTokens: 3,
    cost: 0.5,
  });
  expect(addUsage({}, {})).toEqual({});
});

it('mergeUsage overlays later reports field by field', () => {
  expect(mergeUsage({ inputTokens: 5, outputTokens: 1 }, { outputTokens: 9 })).toEqual({ inputTokens: 5, outputTokens: 9 });
});
