/**
 * OpenAI: the Responses API by default (https://platform.openai.com/docs/api-reference/responses),
 * Chat Completions on request (`openai.model(id, { dialect: 'openai_completions' })`).
 * Bearer key: https://platform.openai.com/docs/api-reference/authentication
 */
import { openaiCompletionsClient, openaiResponsesClient } from '@parlance/dialects';
import { models as openaiModels } from '../../catalog/models/openai.ts';
import { createProvider } from '../define-provider.ts';
import { openaiFileApi } from '../file-apis.ts';
import { omit } from '../body-quirks.ts';

/**
 * 
 *
 * @example
 * await createEngine().chat({ model: 'openai:gpt-5-mini', prompt: 'Hi' }); // OPENAI_API_KEY, OPENAI_BASE_URL
 * const chatCompletions = openai.model('gpt-4.1', { dialect: 'openai_completions' });
 */
export const openai = /* @__PURE__ */ createProvider({
  id: 'openai',
  name: 'OpenAI',
  baseURL: 'https://api.openai.com/v1',
  // The openai SDK's variable: https://github.com/openai/openai-node#configuring-the-base-url (includes /v1).
  baseURLEnv: 'OPENAI_BASE_URL',
  auth: { env: 'OPENAI_API_KEY' },
  dialect: 'openai_responses',
  files: openaiFileApi,
  modifyBody(body, { info, request }) {
    // Reasoning models reject sampling parameters ("Unsupported parameter: 'temperature'"),
    // except the GPT-5.1+ models with reasoning turned off.
    // https://platform.openai.com/docs/guides/reasoning#limitations
    if (info.reasoning && request.thinking !== false) return omit(body, 'temperature', 'top_p');
    return body;
  },
}, { dialects: { openai_responses: openaiResponsesClient, openai_completions: openaiCompletionsClient }, catalog: { openai: openaiModels } });
