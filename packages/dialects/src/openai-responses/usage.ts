/**
 * Usage and incomplete reasons of a Responses API response object.
 * Usage: https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 * xAI cost: https://docs.x.ai/developers/cost-tracking
 */
import type { FinishReason, Usage } from '@parlance/protocol';

type Json = Record<string, any>;

/** xAI reports the billed cost in ticks: 1 USD = 10^10 ticks. */
const TICKS_PER_USD = 1e10;

/**
 * `input_tokens` already includes the cached tokens (our convention), `output_tokens`
 * includes the reasoning tokens. OpenRouter adds `cost` (USD), xAI `cost_in_usd_ticks`.
 */
export function usageFrom(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const u = raw as Json;
  const usage: Usage = {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const set = (key: keyof Usage, v: unknown) => {
    const n = num(v);
    if (n !== undefined) usage[key] = n;
  };
  set('inputTokens', u.input_tokens);
  set('outputTokens', u.output_tokens);
  set('cacheReadTokens', u.input_tokens_details?.cached_tokens);
  set('cacheWriteTokens', u.input_tokens_details?.cache_write_tokens);
  set('reasoningTokens', u.output_tokens_details?.reasoning_tokens);
  set('totalTokens', u.total_tokens);
  set('cost', u.cost);
  const ticks = num(u.cost_in_usd_ticks);
  if (usage.cost === undefined && ticks !== undefined) usage.cost = ticks / TICKS_PER_USD;
  return Object.keys(usage).length ? usage : undefined;
}

/** `incomplete_details.reason`: https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details */
export function incompleteReason(reason: unknown): FinishReason {
  if (reason === 'max_output_tokens' || reason === 'max_tokens') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}
