/**
 * Anthropic Messages API: `x-api-key` and a pinned `anthropic-version`
 * (https://docs.anthropic.com/en/api/versioning). The dialect sets `max_tokens`,
 * which the API requires, and sizes it around the thinking budget.
 */
import { anthropicMessagesClient } from '@parlance/dialects';
import { models as anthropicModels } from '../../catalog/models/anthropic.ts';
import { createProvider } from '../define-provider.ts';
import { anthropicFileApi } from '../file-apis.ts';

/**
 * 
 *
 * @example
 * await createEngine().chat({ model: 'anthropic:claude-sonnet-4-5', prompt: 'Hi' }); // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
 * const viaProxy = anthropic.withSettings({ baseURL: 'https://llm-proxy.internal' });
 */
export const anthropic = /* @__PURE__ */ createProvider({
  id: 'anthropic',
  name: 'Anthropic',
  baseURL: 'https://api.anthropic.com',
  // The @anthropic-ai/sdk's variable (no /v1: the SDK, like us, adds /v1/messages).
  baseURLEnv: 'ANTHROPIC_BASE_URL',
  auth: { env: 'ANTHROPIC_API_KEY', header: 'x-api-key' },
  dialect: 'anthropic_messages',
  files: anthropicFileApi,
  headers: { 'anthropic-version': '2023-06-01' },
}, { dialects: { anthropic_messages: anthropicMessagesClient }, catalog: { anthropic: anthropicModels } });
