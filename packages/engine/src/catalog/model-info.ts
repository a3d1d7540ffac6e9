/**
 * What the engine knows about a model before calling it (context window, max output, image
 * input, reasoning and effort levels, prices), read from one provider's catalog table. No table
 * is imported here: a provider's entry point brings its own (./models/<id>.ts), so a Worker that
 * uses one provider bundles one table; ./catalog.ts holds them all for `getModelInfo`.
 */
import { samplingRules, type SamplingRules } from '@parlance/dialects';
import type { ReasoningEffort, Usage } from '@parlance/protocol';

/**
 * 
 *
 * @example
 * const acceptsImages = getModelInfo('openai', 'gpt-5-mini').input.includes('image' satisfies InputModality);
 */
export type InputModality = 'text' | 'image';

/**
 * US dollars per million tokens.
 *
 * @example
 * const pricing: ModelPricing = { input: 1.25, output: 10, cacheRead: 0.125 };
 */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * What the catalog knows about a model: context window, output limit, input kinds, reasoning, prices.
 *
 * @example
 * const { contextWindow, pricing } = getModelInfo('openai', 'gpt-5-mini');
 */
export interface ModelInfo {
  provider: string;
  id: string;
  /** False when the catalog has no entry and the values below are defaults. */
  known: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  input: InputModality[];
  /** Undefined when unknown: the engine then passes thinking settings through unchanged. */
  reasoning?: boolean;
  /** The effort levels the model accepts (known reasoning models only). */
  efforts?: ReasoningEffort[];
  /** False when thinking cannot be turned off. */
  canDisableThinking?: boolean;
  pricing?: ModelPricing;
  /** Sampling settings the model rejects (known models only; see `samplingRules`). */
  sampling?: SamplingRules;
}

// The sampling rules live in @parlance/dialects, so a dialect used alone applies them too.
export { samplingRules, type SamplingRules } from '@parlance/dialects';

/**
 * Values for a model the catalog does not know: large enough not to truncate, permissive on input.
 *
 * @example
 * const limit = info.known ? info.contextWindow : UNKNOWN_MODEL_DEFAULTS.contextWindow;
 */
export const UNKNOWN_MODEL_DEFAULTS = {
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  input: ['text', 'image'] as InputModality[],
} as const;

/**
 * One model in a catalog table, compact (the keys are explained in ./models/*.ts): context, max output, images, reasoning, prices.
 *
 * @example
 * const entry: CatalogEntry = { c: 128_000, o: 4_096, img: 1, $: [0.8, 3.2] };
 */
export interface CatalogEntry {
  c: number;
  o: number;
  img?: number;
  r?: number;
  e?: string[];
  off?: number;
  $?: number[];
}

/**
 * A provider's models by id, in the catalog's compact form (as scripts/update-catalog.mjs writes them):
 * what a built-in provider's entry point, or a cloud provider, ships beside itself.
 *
 * @example
 * const table: CatalogTable = { 'amazon.nova-pro-v1:0': { c: 300_000, o: 8_192, img: 1, $: [0.8, 3.2] } };
 */
export type CatalogTable = Record<string, CatalogEntry>;

const DEFAULT_EFFORTS: ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

function expand(provider: string, id: string, entry: CatalogEntry): ModelInfo {
  const info: ModelInfo = {
    provider,
    id,
    known: true,
    contextWindow: entry.c,
    maxOutputTokens: entry.o,
    input: entry.img ? ['text', 'image'] : ['text'],
    reasoning: entry.r === 1,
  };
  if (entry.r) {
    info.efforts = (entry.e as ReasoningEffort[] | undefined) ?? DEFAULT_EFFORTS;
    info.canDisableThinking = entry.off !== 0;
  }
  const sampling = samplingRules(provider, id, entry.r === 1);
  if (sampling) info.sampling = sampling;
  const prices = entry.$;
  if (prices && prices.length >= 2) {
    info.pricing = { input: prices[0]!, output: prices[1]! };
    if (prices[2] !== undefined) info.pricing.cacheRead = prices[2];
    if (prices[3] !== undefined) info.pricing.cacheWrite = prices[3];
  }
  return info;
}

function find(table: CatalogTable, id: string): [string, CatalogEntry] | undefined {
  const exact = table[id];
  if (exact) return [id, exact];
  const lower = id.toLowerCase();
  for (const [key, entry] of Object.entries(table)) if (key.toLowerCase() === lower) return [key, entry];
  // A dated snapshot ('gpt-4o-2024-08-06', 'claude-sonnet-4-5-20250929', Vertex's 'claude-sonnet-4-5@20250929') of a listed alias.
  const undated = id.replace(/[-@](\d{4}-\d{2}-\d{2}|\d{8})$/, '');
  if (undated !== id && table[undated]) return [undated, table[undated]];
  // A Bedrock cross-region inference profile ('us.', 'eu.', 'apac.', 'global.') of a listed model.
  const local = id.replace(/^(us|eu|apac|au|jp|ca|us-gov|global)\./, '');
  if (local !== id) return find(table, local);
  return undefined;
}

/**
 * Looks a model up in one table (a provider's own, a cloud's `models.json`), with the catalog's rules:
 * the id exactly, then case-insensitively, then a dated snapshot's alias, a cross-region profile's
 * model; a model it does not list (or no table) gets the permissive defaults.
 *
 * @example
 * const info = modelInfoFromTable('bedrock', 'us.amazon.nova-pro-v1:0', table);
 */
export function modelInfoFromTable(provider: string, modelId: string, table: CatalogTable | undefined): ModelInfo {
  const hit = table ? find(table, modelId) : undefined;
  if (hit) return { ...expand(provider, modelId, hit[1]) };
  return {
    provider,
    id: modelId,
    known: false,
    contextWindow: UNKNOWN_MODEL_DEFAULTS.contextWindow,
    maxOutputTokens: UNKNOWN_MODEL_DEFAULTS.maxOutputTokens,
    input: [...UNKNOWN_MODEL_DEFAULTS.input],
  };
}

/**
 * Turns usage into US dollars. `inputTokens` counts every prompt token, cached ones
 * included (OpenAI's `prompt_tokens` convention, which the dialects normalise to), so
 * cache reads and writes are taken out of it and billed at their own prices.
 * Undefined when the prices or the token counts are unknown: a guessed cost would be wrong in every bill.
 *
 * @example
 * computeCost(getModelInfo('openai', 'gpt-5-mini').pricing, { inputTokens: 1200, outputTokens: 300 }); // dollars
 */
export function computeCost(pricing: ModelPricing | undefined, usage: Usage): number | undefined {
  if (!pricing) return undefined;
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite);
  const dollars =
    uncached * pricing.input +
    cacheRead * (pricing.cacheRead ?? pricing.input) +
    cacheWrite * (pricing.cacheWrite ?? pricing.input) +
    (usage.outputTokens ?? 0) * pricing.output;
  // Round away float noise (0.1 + 0.2) at a billionth of a dollar.
  return Math.round((dollars / 1_000_000) * 1e9) / 1e9;
}
