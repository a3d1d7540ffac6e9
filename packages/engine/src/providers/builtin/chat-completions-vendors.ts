/**
 * Providers that speak Chat Completions, each with its base URL, key variable and the
 * quirks its API reference documents. The dialect's decoder already reads every
 * reasoning field name (`reasoning_content`, `reasoning`, `reasoning_details`), usage
 * inside the choice (Moonshot) or `x_groq`, and errors inside chunks.
 */
import { omit, thinkingSwitch, useMaxTokens } from '../body-quirks.ts';
import { openaiCompletionsClient } from '@parlance/dialects';
import { models as cerebrasModels } from '../../catalog/models/cerebras.ts';
import { models as deepseekModels } from '../../catalog/models/deepseek.ts';
import { models as fireworksModels } from '../../catalog/models/fireworks.ts';
import { models as groqModels } from '../../catalog/models/groq.ts';
import { models as mistralModels } from '../../catalog/models/mistral.ts';
import { models as moonshotModels } from '../../catalog/models/moonshot.ts';
import { models as openrouterModels } from '../../catalog/models/openrouter.ts';
import { models as xaiModels } from '../../catalog/models/xai.ts';
import { models as zaiModels } from '../../catalog/models/zai.ts';
import { createProvider } from '../define-provider.ts';

/**
 * Groq https://console.groq.com/docs/openai. Reasoning models other than gpt-oss put
 * their thinking in `<think>` tags inside the text unless `reasoning_format: 'parsed'`
 * asks for a separate `reasoning` field; gpt-oss sends that field already and rejects
 * `reasoning_format`. Qwen 3 takes `reasoning_effort` as 'none' | 'default' only.
 * https://console.groq.com/docs/reasoning
 *
 * @example
 * await createEngine().chat({ model: 'groq:llama-3.3-70b-versatile', prompt: 'Hi' });
 * const direct = groq.model('llama-3.3-70b-versatile', { apiKey: process.env.GROQ_API_KEY });
 */
export const groq = /* @__PURE__ */ createProvider({
  id: 'groq',
  name: 'Groq',
  baseURL: 'https://api.groq.com/openai/v1',
  auth: { env: 'GROQ_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: Groq rejects it: 400 "property 'reasoning_content' is unsupported" (https://console.groq.com/docs/reasoning).
  acceptsReasoning: [],
  decoderOptions: { reasoningFields: ['reasoning', 'reasoning_content'] },
  modifyBody(body, { modelId, info }) {
    const gptOss = modelId.includes('gpt-oss');
    let out = body;
    if (info.reasoning && !gptOss && out.reasoning_format === undefined) out = { ...out, reasoning_format: 'parsed' };
    if (/qwen3/i.test(modelId) && out.reasoning_effort !== undefined) {
      out = { ...out, reasoning_effort: out.reasoning_effort === 'none' ? 'none' : 'default' };
    }
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { groq: groqModels } });

/**
 * OpenRouter https://openrouter.ai/docs/api-reference/overview. Reasoning is one
 * normalized `reasoning` object (`effort`, `max_tokens` or `enabled`), not
 * `reasoning_effort` (https://openrouter.ai/docs/use-cases/reasoning-tokens). It reports
 * the generation's cost in the usage chunk, which is kept over the catalog's estimate,
 * and keeps the connection alive with `: OPENROUTER PROCESSING` comments.
 * Attribution headers (`HTTP-Referer`, `X-Title`) can be passed in `headers`.
 *
 * @example
 * await createEngine().chat({ model: 'openrouter:anthropic/claude-sonnet-4.5', prompt: 'Hi' });
 * const direct = openrouter.model('anthropic/claude-sonnet-4.5', { apiKey: process.env.OPENROUTER_API_KEY });
 */
export const openrouter = /* @__PURE__ */ createProvider({
  id: 'openrouter',
  name: 'OpenRouter',
  baseURL: 'https://openrouter.ai/api/v1',
  auth: { env: 'OPENROUTER_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: OpenRouter takes `reasoning_details` back (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks).
  acceptsReasoning: ['reasoning_details'],
  modifyBody(body, { request }) {
    const thinking = request.thinking;
    if (thinking === undefined || body.reasoning !== undefined) return body;
    const out = omit(body, 'reasoning_effort');
    if (thinking === false) out.reasoning = { enabled: false };
    else if (thinking.effort) out.reasoning = { effort: thinking.effort };
    else if (thinking.budgetTokens !== undefined) out.reasoning = { max_tokens: thinking.budgetTokens };
    else out.reasoning = { enabled: true };
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { openrouter: openrouterModels } });

/**
 * DeepSeek https://api-docs.deepseek.com/api/create-chat-completion. Thinking is the
 * `thinking: {type}` switch; effort accepts 'high' and 'max' (the catalog clamps to
 * high/xhigh, and xhigh is sent as 'max'). Reasoning arrives as `reasoning_content`.
 *
 * @example
 * await createEngine().chat({ model: 'deepseek:deepseek-chat', prompt: 'Hi' });
 * const direct = deepseek.model('deepseek-chat', { apiKey: process.env.DEEPSEEK_API_KEY });
 */
export const deepseek = /* @__PURE__ */ createProvider({
  id: 'deepseek',
  name: 'DeepSeek',
  baseURL: 'https://api.deepseek.com',
  auth: { env: 'DEEPSEEK_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: DeepSeek wants `reasoning_content` back after tool calls (https://api-docs.deepseek.com/guides/thinking_mode).
  acceptsReasoning: ['reasoning_content'],
  decoderOptions: { reasoningFields: ['reasoning_content'] },
  modifyBody(body, context) {
    const out = useMaxTokens(thinkingSwitch(body, context, true));
    if (out.reasoning_effort === 'xhigh') out.reasoning_effort = 'max';
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { deepseek: deepseekModels } });

/**
 * Together AI https://docs.together.ai/reference/chat-completions-1
 *
 * @example
 * await createEngine().chat({ model: 'together:meta-llama/Llama-3.3-70B-Instruct-Turbo', prompt: 'Hi' });
 * const direct = together.model('meta-llama/Llama-3.3-70B-Instruct-Turbo', { apiKey: process.env.TOGETHER_API_KEY });
 */
export const together = /* @__PURE__ */ createProvider({
  id: 'together',
  name: 'Together AI',
  baseURL: 'https://api.together.xyz/v1',
  auth: { env: 'TOGETHER_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: no documented reasoning input (https://docs.together.ai/reference/chat-completions-1).
  acceptsReasoning: [],
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: {} });

/**
 * Fireworks AI https://docs.fireworks.ai/api-reference/post-chatcompletions
 *
 * @example
 * await createEngine().chat({ model: 'fireworks:accounts/fireworks/models/llama-v3p3-70b-instruct', prompt: 'Hi' });
 * const direct = fireworks.model('accounts/fireworks/models/llama-v3p3-70b-instruct', { apiKey: process.env.FIREWORKS_API_KEY });
 */
export const fireworks = /* @__PURE__ */ createProvider({
  id: 'fireworks',
  name: 'Fireworks AI',
  baseURL: 'https://api.fireworks.ai/inference/v1',
  auth: { env: 'FIREWORKS_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: none. Its reasoning guide documents `reasoning_content` on output only
  // (https://docs.fireworks.ai/guides/reasoning); the chat API reference names no input for it
  // (https://docs.fireworks.ai/api-reference/post-chatcompletions). Third-party gateways mention a
  // `reasoning_history: "preserved"` request switch that neither page documents: not relied on.
  acceptsReasoning: [],
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { fireworks: fireworksModels } });

/**
 * Mistral https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post.
 * It names the limit `max_tokens`, rejects unknown fields (422), and turns reasoning
 * on for Magistral with `prompt_mode: 'reasoning'` rather than an effort level.
 *
 * @example
 * await createEngine().chat({ model: 'mistral:mistral-large-latest', prompt: 'Hi' });
 * const direct = mistral.model('mistral-large-latest', { apiKey: process.env.MISTRAL_API_KEY });
 */
export const mistral = /* @__PURE__ */ createProvider({
  id: 'mistral',
  name: 'Mistral',
  baseURL: 'https://api.mistral.ai/v1',
  auth: { env: 'MISTRAL_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: Mistral rejects unknown fields: 422 `extra_forbidden`.
  acceptsReasoning: [],
  modifyBody(body, { modelId, request }) {
    let out = useMaxTokens(omit(body, 'stream_options'));
    if (/magistral/i.test(modelId)) {
      out = omit(out, 'reasoning_effort');
      if (request.thinking && out.prompt_mode === undefined) out.prompt_mode = 'reasoning';
    }
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { mistral: mistralModels } });

/**
 * xAI https://docs.x.ai/docs/api-reference#chat-completions. Only grok-3-mini takes
 * `reasoning_effort` (low | high); the other Grok reasoning models reject it
 * (https://docs.x.ai/docs/guides/reasoning).
 *
 * @example
 * await createEngine().chat({ model: 'xai:grok-4', prompt: 'Hi' });
 * const direct = xai.model('grok-4', { apiKey: process.env.XAI_API_KEY });
 */
export const xai = /* @__PURE__ */ createProvider({
  id: 'xai',
  name: 'xAI',
  baseURL: 'https://api.x.ai/v1',
  auth: { env: 'XAI_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: no documented reasoning input (https://docs.x.ai/docs/guides/reasoning).
  acceptsReasoning: [],
  modifyBody(body, { modelId }) {
    if (body.reasoning_effort === undefined) return body;
    if (!/grok-3-mini/.test(modelId) || body.reasoning_effort === 'none') return omit(body, 'reasoning_effort');
    return { ...body, reasoning_effort: ['high', 'xhigh'].includes(String(body.reasoning_effort)) ? 'high' : 'low' };
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { xai: xaiModels } });

/**
 * Cerebras https://inference-docs.cerebras.ai/api-reference/chat-completions
 *
 * @example
 * await createEngine().chat({ model: 'cerebras:llama-3.3-70b', prompt: 'Hi' });
 * const direct = cerebras.model('llama-3.3-70b', { apiKey: process.env.CEREBRAS_API_KEY });
 */
export const cerebras = /* @__PURE__ */ createProvider({
  id: 'cerebras',
  name: 'Cerebras',
  baseURL: 'https://api.cerebras.ai/v1',
  auth: { env: 'CEREBRAS_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: Cerebras rejects it with 400 (https://inference-docs.cerebras.ai/api-reference/chat-completions).
  acceptsReasoning: [],
  decoderOptions: { reasoningFields: ['reasoning', 'reasoning_content'] },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { cerebras: cerebrasModels } });

/**
 * Moonshot (Kimi) https://platform.moonshot.ai/docs/api/chat. `max_tokens`, the
 * `thinking: {type}` switch instead of `reasoning_effort`, and usage inside the choice
 * of the last chunk (the decoder reads it there).
 *
 * @example
 * await createEngine().chat({ model: 'moonshot:kimi-k2-0905-preview', prompt: 'Hi' });
 * const direct = moonshot.model('kimi-k2-0905-preview', { apiKey: process.env.MOONSHOT_API_KEY });
 */
export const moonshot = /* @__PURE__ */ createProvider({
  id: 'moonshot',
  name: 'Moonshot AI',
  baseURL: 'https://api.moonshot.ai/v1',
  auth: { env: 'MOONSHOT_API_KEY' },
  dialect: 'openai_completions',
  // Reasoning taken back: Kimi thinking models take `reasoning_content` back with tool calls (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model).
  acceptsReasoning: ['reasoning_content'],
  decoderOptions: { reasoningFields: ['reasoning_content'] },
  modifyBody: (body, context) => useMaxTokens(thinkingSwitch(body, context, false)),
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { moonshot: moonshotModels } });

/**
 * Z.ai (GLM) https://docs.z.ai/api-reference/llm/chat-completion. `max_tokens`, the
 * `thinking: {type}` switch (https://docs.z.ai/guides/capabilities/thinking-mode), and
 * `tool_stream: true` (streamed requests) so tool arguments stream instead of arriving whole at the end.
 *
 * @example
 * await createEngine().chat({ model: 'zai:glm-4.6', prompt: 'Hi' });
 * const direct = zai.model('glm-4.6', { apiKey: process.env.ZAI_API_KEY });
 */
export const zai = /* @__PURE__ */ createProvider({
  id: 'zai',
  name: 'Z.ai',
  baseURL: 'https://api.z.ai/api/paas/v4',
  auth: { env: ['ZAI_API_KEY', 'ZHIPU_API_KEY'] },
  dialect: 'openai_completions',
  // Reasoning taken back: GLM keeps thinking across turns from `reasoning_content` (https://docs.z.ai/guides/capabilities/thinking-mode).
  acceptsReasoning: ['reasoning_content'],
  decoderOptions: { reasoningFields: ['reasoning_content'] },
  modifyBody(body, context) {
    const out = useMaxTokens(thinkingSwitch(body, context, false));
    if (out.stream === true && Array.isArray(out.tools) && out.tools.length > 0 && out.tool_stream === undefined) out.tool_stream = true;
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: { zai: zaiModels } });

/**
 * Alibaba Cloud Model Studio (Qwen, DashScope compatible mode, international endpoint)
 * https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope.
 * Hybrid thinking models switch with `enable_thinking` and take a `thinking_budget`
 * (https://www.alibabacloud.com/help/en/model-studio/deep-thinking), not `reasoning_effort`.
 *
 * @example
 * await createEngine().chat({ model: 'alibaba:qwen-plus', prompt: 'Hi' });
 * const direct = alibaba.model('qwen-plus', { apiKey: process.env.DASHSCOPE_API_KEY });
 */
export const alibaba = /* @__PURE__ */ createProvider({
  id: 'alibaba',
  name: 'Alibaba Model Studio',
  baseURL: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
  auth: { env: ['DASHSCOPE_API_KEY', 'ALIBABA_API_KEY'] },
  dialect: 'openai_completions',
  // Reasoning taken back: no documented reasoning input in compatible mode (https://www.alibabacloud.com/help/en/model-studio/deep-thinking).
  acceptsReasoning: [],
  decoderOptions: { reasoningFields: ['reasoning_content'] },
  modifyBody(body, { request }) {
    const out = useMaxTokens(omit(body, 'reasoning_effort'));
    const thinking = request.thinking;
    if (thinking === undefined || out.enable_thinking !== undefined) return out;
    out.enable_thinking = thinking !== false;
    if (thinking && thinking.budgetTokens !== undefined) out.thinking_budget = thinking.budgetTokens;
    return out;
  },
}, { dialects: { openai_completions: openaiCompletionsClient }, catalog: {} });
