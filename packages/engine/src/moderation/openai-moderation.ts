/**
 * OpenAI's moderation endpoint: https://platform.openai.com/docs/api-reference/moderations/create.
 * Strings go as a string array (one result each); a list with images goes as the
 * multi-modal array of `text` / `image_url` objects (one result for the list). The
 * endpoint is free, so the cost is 0.
 */
import { ParlanceError } from '@parlance/protocol';
import { splitSpec } from '../media/split-spec.ts';
import { arrayField, mediaModelBase } from '../providers/api-client.ts';
import { openai } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import { MODERATION_CATEGORIES, type ModerationCategory, type ModerationModel, type ModerationResponse, type ModerationResult } from './moderation-model.ts';

interface RawResult {
  flagged?: unknown;
  categories?: Record<string, unknown>;
  category_scores?: Record<string, unknown>;
  category_applied_input_types?: Record<string, unknown>;
}

function toResult(raw: RawResult, index: number): ModerationResult {
  if (typeof raw !== 'object' || raw === null || typeof raw.flagged !== 'boolean') {
    throw new ParlanceError('invalid_response', `OpenAI returned an unreadable moderation result at results[${index}]`);
  }
  const categories = {} as Record<ModerationCategory, boolean>;
  const scores = {} as Record<ModerationCategory, number>;
  const applied: Partial<Record<ModerationCategory, ('text' | 'image')[]>> = {};
  for (const category of MODERATION_CATEGORIES) {
    // `illicit` is null from the legacy text-moderation models: not judged, so not flagged.
    categories[category] = raw.categories?.[category] === true;
    const score = raw.category_scores?.[category];
    scores[category] = typeof score === 'number' && Number.isFinite(score) ? score : 0;
    const types = raw.category_applied_input_types?.[category];
    if (Array.isArray(types)) applied[category] = types.filter((t): t is 'text' | 'image' => t === 'text' || t === 'image');
  }
  const result: ModerationResult = { flagged: raw.flagged, categories, scores };
  if (Object.keys(applied).length > 0) result.appliedInputTypes = applied;
  return result;
}

/**
 * An OpenAI moderation model (`omni-moderation-latest`, the default).
 *
 * @example
 * ```ts
 * const { results } = await moderate(openaiModerationModel(), { input: ['first comment', 'second comment'] });
 * ```
 */
export function openaiModerationModel(modelId = 'omni-moderation-latest', settings: ProviderSettings = {}): ModerationModel {
  const { client, base } = mediaModelBase(openai.definition, modelId, settings);
  return {
    ...base,
    async classify(inputs, call = {}) {
      if (inputs.length === 0) throw new ParlanceError('invalid_request', 'Nothing to moderate', { retryable: false });
      const allText = inputs.every((i) => typeof i === 'string');
      const input = allText
        ? inputs
        : inputs.map((i) =>
            typeof i === 'string' ? { type: 'text', text: i } : i.type === 'text' ? { type: 'text', text: i.text } : { type: 'image_url', image_url: { url: i.url } },
          );
      const answer = await client.postJson('/moderations', { model: modelId, input }, call);
      const results = (arrayField(answer, 'results', client.providerName) as RawResult[]).map(toResult);
      const response: ModerationResponse = { flagged: results.some((r) => r.flagged), results, usage: { cost: 0 } };
      if (typeof answer.id === 'string') response.id = answer.id;
      if (typeof answer.model === 'string') response.model = answer.model;
      return response;
    },
  };
}

/**
 * A moderation model from 'openai:<model>'.
 *
 * @example
 * ```ts
 * const model = resolveModerationModel('openai:omni-moderation-latest', { env: c.env });
 * ```
 */
export function resolveModerationModel(spec: string | ModerationModel, settings: ProviderSettings = {}): ModerationModel {
  if (typeof spec !== 'string') return spec;
  return openaiModerationModel(splitSpec(spec, 'moderation', ['openai']).modelId, settings);
}
