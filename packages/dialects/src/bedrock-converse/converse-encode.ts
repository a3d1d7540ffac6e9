/**
 * Encodes a request for Bedrock's Converse API (ConverseStream), the one request shape for every model
 * family on Bedrock: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * - `system` blocks; `messages` alternating user/assistant (tool results ride in a user message,
 *   consecutive messages of one role are merged, as the API requires);
 * - content blocks: text, image / document bytes (base64 in JSON), toolUse, toolResult, reasoningContent
 *   (signed reasoning goes back with its signature; redacted reasoning as its bytes), cachePoint;
 * - `inferenceConfig` (maxTokens, temperature, topP, stopSequences), `toolConfig`;
 * - thinking for Anthropic models as `additionalModelRequestFields.thinking` (the model's own field).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 */
import type { EncodeOptions } from '../types.ts';
import type { Message, ModelRequest, Part } from '@parlance/protocol';

type Json = Record<string, unknown>;

/**
 * The id the Converse wire goes by (provenance, provider state keys).
 *
 * @example
 * const signature = part.providerState?.[CONVERSE];
 */
export const CONVERSE = 'bedrock_converse';

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

function state(part: { providerState?: Record<string, unknown> | undefined }): Json | undefined {
  const own = part.providerState?.[CONVERSE];
  return typeof own === 'object' && own !== null ? (own as Json) : undefined;
}

function warnOnce(options: EncodeOptions, seen: Set<string>, setting: string, message: string) {
  if (seen.has(setting)) return;
  seen.add(setting);
  options.onWarning?.({ setting, message });
}

/** Document names allow letters, digits, spaces, hyphens, parentheses and brackets only. */
function documentName(filename: string | undefined, index: number): string {
  const cleaned = (filename ?? '').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9 ()[\]-]/g, ' ').replace(/\s+/g, ' ').trim();
  return cleaned || `document-${index}`;
}

function toolResultContent(output: unknown): Json[] {
  if (typeof output === 'string') return [{ text: output }];
  // `json` must be an object (a Document); anything else goes as its JSON text.
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) return [{ json: output }];
  return [{ text: JSON.stringify(output) ?? 'null' }];
}

function encodePart(part: Part, role: Message['role'], index: number, options: EncodeOptions, seen: Set<string>): Json | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { text: part.text };
    case 'file': {
      if (part.data === undefined) {
        warnOnce(options, seen, 'file', 'Bedrock Converse takes files as bytes: a file given by URL was left out');
        return undefined;
      }
      const type = part.mediaType.toLowerCase();
      const image = IMAGE_FORMATS[type];
      if (image) return { image: { format: image, source: { bytes: part.data } } };
      const document = DOCUMENT_FORMATS[type];
      if (document) return { document: { format: document, name: documentName(part.filename, index), source: { bytes: part.data } } };
      warnOnce(options, seen, 'file', `Bedrock Converse does not take ${part.mediaType} files: it was left out`);
      return undefined;
    }
    case 'reasoning': {
      if (role !== 'assistant') return undefined;
      const own = state(part);
      if (part.redacted && typeof own?.redactedContent === 'string') return { reasoningContent: { redactedContent: own.redactedContent } };
      // Reasoning without a signature cannot go back (the model rejects unsigned thinking): left out.
      if (!part.signature) return undefined;
      return { reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } };
    }
    case 'tool-call':
      if (part.providerExecuted) return undefined;
      return { toolUse: { toolUseId: part.id, name: part.name, input: part.input ?? {} } };
    case 'tool-result':
      if (part.providerExecuted) return undefined;
      return { toolResult: { toolUseId: part.toolCallId, content: toolResultContent(part.output), status: part.isError ? 'error' : 'success' } };
    default:
      return undefined;
  }
}

function hasToolBlocks(messages: Json[]): boolean {
  return messages.some((m) => (m.content as Json[]).some((block) => block.toolUse !== undefined || block.toolResult !== undefined));
}

/**
 * The Converse request body (without `modelId`, which goes in the path).
 *
 * @example
 * encodeConverseRequest({ model: 'amazon.nova-pro-v1:0', messages, maxOutputTokens: 400 });
 */
export function encodeConverseRequest(request: ModelRequest, options: EncodeOptions = {}): Record<string, unknown> {
  const seen = new Set<string>();
  const system: Json[] = request.system ? [{ text: request.system }] : [];
  const messages: Json[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') {
      for (const part of message.parts) if (part.type === 'text' && part.text) system.push({ text: part.text });
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.parts.flatMap((part, i): Json[] => {
      const block = encodePart(part, message.role, i, options, seen);
      return block ? [block] : [];
    });
    if (content.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === role) (last.content as Json[]).push(...content);
    else messages.push({ role, content });
  }
  const cache = request.cache !== undefined && request.cache.breakpoints !== false;
  if (cache) {
    if (system.length) system.push({ cachePoint: { type: 'default' } });
    const last = messages.at(-1);
    if (last) (last.content as Json[]).push({ cachePoint: { type: 'default' } });
  }

  const body: Json = { messages };
  if (system.length) body.system = system;
  const inference: Json = {};
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.topP !== undefined) inference.topP = request.topP;
  if (request.stop?.length) inference.stopSequences = request.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;

  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  // Converse has no "none": tools are left out, unless the history holds tool blocks (then toolConfig is required).
  const sendTools = tools.length > 0 && (choice !== 'none' || hasToolBlocks(messages));
  if (choice === 'none' && sendTools) {
    options.onWarning?.({ setting: 'toolChoice', message: 'Bedrock Converse has no tool choice "none" and the history holds tool calls: tools were sent with choice "auto"' });
  }
  if (sendTools) {
    const toolConfig: Json = {
      tools: tools.map((tool) => ({ toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: tool.inputSchema } } })),
    };
    if (choice === 'required') toolConfig.toolChoice = { any: {} };
    else if (typeof choice === 'object') toolConfig.toolChoice = { tool: { name: choice.name } };
    else if (choice === 'auto') toolConfig.toolChoice = { auto: {} };
    if (cache) (toolConfig.tools as Json[]).push({ cachePoint: { type: 'default' } });
    body.toolConfig = toolConfig;
  }

  if (request.output) {
    options.onWarning?.({ setting: 'output', message: 'Bedrock Converse takes no response schema: the schema was not sent (the engine still validates the answer)' });
  }
  const thinking = request.thinking;
  if (thinking) {
    if (/(^|\.)anthropic\./.test(request.model)) {
      const budget = thinking.budgetTokens ?? { minimal: 1_024, low: 2_048, medium: 8_192, high: 16_384, xhigh: 32_768 }[thinking.effort ?? 'medium'];
      body.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: budget } };
      // Anthropic requires max_tokens above the budget.
      const max = (inference.maxTokens as number | undefined) ?? 0;
      if (max <= budget) body.inferenceConfig = { ...inference, maxTokens: budget + Math.max(max, 1_024) };
    } else {
      options.onWarning?.({ setting: 'thinking', message: `Bedrock Converse: no thinking setting is known for ${request.model}: it was not sent` });
    }
  }
  if (request.extra) Object.assign(body, request.extra);
  return body;
}
