/**
 * The four official SDKs as independent readers: each sends one turn of a conversation in
 * its own API and reports what it read, from its own typed objects and errors. Used against
 * the mock provider (does every SDK accept what the mock sends?) and against the gateway
 * (does every SDK get a faithful answer from any provider?).
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Part as GeminiPart } from '@google/genai';
import type { DialectId } from '@parlance/dialects';
import { Ollama, type Message as OllamaMessage } from 'ollama';
import OpenAI from 'openai';

export const SDKS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ollama'] as const;
export type Sdk = (typeof SDKS)[number];

export const SDK_DIALECT: Record<Sdk, DialectId> = {
  'openai-chat': 'openai_completions',
  'openai-responses': 'openai_responses',
  anthropic: 'anthropic_messages',
  gemini: 'google_gemini',
  ollama: 'ollama_chat',
};

export interface ObservedCall {
  id?: string;
  name: string;
  args: unknown;
  /** Gemini: the thought signature on this call's part. */
  signature?: string;
}

/** What an SDK read, in its own terms reduced to comparable fields. */
export interface Observed {
  text: string;
  reasoning: string;
  /** The opaque reasoning state the SDK holds (Anthropic signature, Responses encrypted_content, Gemini thoughtSignature). */
  signature?: string;
  toolCalls: ObservedCall[];
  /** The SDK's own finish value (`stop`, `end_turn`, `MAX_TOKENS`, `incomplete:max_output_tokens`, ...). */
  finish?: string;
  usage?: { input?: number; output?: number };
  /** The error the SDK threw: its class name, status and message. */
  error?: { name: string; status?: number; message: string };
  /** The conversation so far in the SDK's own format, with this turn's answer appended. */
  history: unknown[];
}

export interface TurnOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  stream: boolean;
  /** The conversation in the SDK's own format (default: one user message). */
  history?: unknown[];
  /** Offer the two tools of the parallel-tools scenario. */
  tools?: boolean;
}

const TOOL_SCHEMAS = {
  weather: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  time: { type: 'object', properties: { zone: { type: 'string' }, format: { type: 'string' } }, required: ['zone'] },
} as const;

function errorOf(error: unknown): Observed['error'] {
  const e = error as { name?: string; constructor?: { name?: string }; status?: number; status_code?: number; message?: string };
  const out: NonNullable<Observed['error']> = { name: e.constructor?.name ?? e.name ?? 'Error', message: String(e.message ?? error) };
  const status = e.status ?? e.status_code;
  if (typeof status === 'number') out.status = status;
  return out;
}

async function openaiChat(options: TurnOptions): Promise<Observed> {
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: `${options.baseURL}/v1`, maxRetries: 0 });
  const history = (options.history ?? [{ role: 'user', content: 'hi' }]) as OpenAI.ChatCompletionMessageParam[];
  const tools: OpenAI.ChatCompletionTool[] | undefined = options.tools
    ? Object.entries(TOOL_SCHEMAS).map(([name, parameters]) => ({ type: 'function', function: { name, parameters } }))
    : undefined;
  const out: Observed = { text: '', reasoning: '', toolCalls: [], history };
  const calls: { id: string; name: string; args: string }[] = [];
  try {
    if (options.stream) {
      const stream = await client.chat.completions.create({
        model: options.model,
        messages: history,
        stream: true,
        stream_options: { include_usage: true },
        ...(tools ? { tools } : {}),
      });
      for await (const chunk of stream) {
        if (chunk.usage) out.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };
        out.text += delta.content ?? '';
        out.reasoning += delta.reasoning_content ?? '';
        for (const call of delta.tool_calls ?? []) {
          const entry = (calls[call.index] ??= { id: '', name: '', args: '' });
          if (call.id) entry.id = call.id;
          if (call.function?.name) entry.name = call.function.name;
          entry.args += call.function?.arguments ?? '';
        }
        if (choice.finish_reason) out.finish = choice.finish_reason;
      }
    } else {
      const completion = await client.chat.completions.create({ model: options.model, messages: history, ...(tools ? { tools } : {}) });
      const choice = completion.choices[0]!;
      const message = choice.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      out.text = message.content ?? '';
      out.reasoning = message.reasoning_content ?? '';
      for (const call of message.tool_calls ?? []) {
        if (call.type === 'function') calls.push({ id: call.id, name: call.function.name, args: call.function.arguments });
      }
      out.finish = choice.finish_reason;
      if (completion.usage) out.usage = { input: completion.usage.prompt_tokens, output: completion.usage.completion_tokens };
    }
  } catch (error) {
    out.error = errorOf(error);
    return out;
  }
  out.toolCalls = calls.map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.args || '{}') }));
  const assistant: OpenAI.ChatCompletionAssistantMessageParam = { role: 'assistant', content: out.text === '' ? null : out.text };
  if (calls.length > 0) assistant.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  out.history = [...history, assistant];
  return out;
}

async function openaiResponses(options: TurnOptions): Promise<Observed> {
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: `${options.baseURL}/v1`, maxRetries: 0 });
  const history = (options.history ?? [{ role: 'user', content: 'hi' }]) as OpenAI.Responses.ResponseInputItem[];
  const tools: OpenAI.Responses.FunctionTool[] | undefined = options.tools
    ? Object.entries(TOOL_SCHEMAS).map(([name, parameters]) => ({ type: 'function', name, parameters: { ...parameters }, strict: false }))
    : undefined;
  const body = {
    model: options.model,
    input: history,
    store: false,
    include: ['reasoning.encrypted_content' as const],
    ...(tools ? { tools } : {}),
  };
  const out: Observed = { text: '', reasoning: '', toolCalls: [], history };
  let response: OpenAI.Responses.Response | undefined;
  try {
    if (options.stream) {
      const stream = await client.responses.create({ ...body, stream: true });
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') out.text += event.delta;
        else if (event.type === 'response.reasoning_summary_text.delta') out.reasoning += event.delta;
        else if (event.type === 'response.completed' || event.type === 'response.incomplete') response = event.response;
        // The SDK hands a stream failure over as a typed `error` event rather than throwing.
        else if (event.type === 'error') {
          out.error = { name: 'ResponseErrorEvent', message: event.message };
          return out;
        }
      }
    } else {
      response = await client.responses.create(body);
      out.text = response.output_text;
    }
  } catch (error) {
    out.error = errorOf(error);
    return out;
  }
  if (!response) throw new Error('The Responses stream ended without a final response');
  let reasoning = '';
  for (const item of response.output) {
    if (item.type === 'reasoning') {
      reasoning += item.summary.map((s) => s.text).join('');
      if (item.encrypted_content) out.signature = item.encrypted_content;
    } else if (item.type === 'function_call') out.toolCalls.push({ id: item.call_id, name: item.name, args: JSON.parse(item.arguments || '{}') });
  }
  if (!options.stream) out.reasoning = reasoning;
  out.finish = response.status === 'incomplete' ? `incomplete:${response.incomplete_details?.reason}` : String(response.status);
  if (response.usage) out.usage = { input: response.usage.input_tokens, output: response.usage.output_tokens };
  // A stateless client sends the output items back as input (reasoning with its encrypted content).
  out.history = [...history, ...(response.output as OpenAI.Responses.ResponseInputItem[])];
  return out;
}

async function anthropic(options: TurnOptions): Promise<Observed> {
  const client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0 });
  const history = (options.history ?? [{ role: 'user', content: 'hi' }]) as Anthropic.MessageParam[];
  const tools: Anthropic.Tool[] | undefined = options.tools
    ? Object.entries(TOOL_SCHEMAS).map(([name, schema]) => ({ name, input_schema: { ...schema, required: [...schema.required] } }))
    : undefined;
  const body = { model: options.model, max_tokens: 2048, messages: history, ...(tools ? { tools } : {}) };
  const out: Observed = { text: '', reasoning: '', toolCalls: [], history };
  let message: Anthropic.Message;
  try {
    if (options.stream) {
      const stream = client.messages.stream(body);
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') out.text += event.delta.text;
      }
      message = await stream.finalMessage();
    } else {
      message = await client.messages.create(body);
    }
  } catch (error) {
    out.error = errorOf(error);
    return out;
  }
  out.text = '';
  for (const block of message.content) {
    if (block.type === 'text') out.text += block.text;
    else if (block.type === 'thinking') {
      out.reasoning += block.thinking;
      out.signature = block.signature;
    } else if (block.type === 'tool_use') out.toolCalls.push({ id: block.id, name: block.name, args: block.input });
  }
  out.finish = message.stop_reason ?? undefined;
  out.usage = { input: message.usage.input_tokens, output: message.usage.output_tokens };
  out.history = [...history, { role: 'assistant', content: message.content }];
  return out;
}

async function gemini(options: TurnOptions): Promise<Observed> {
  const ai = new GoogleGenAI({ apiKey: options.apiKey, httpOptions: { baseUrl: options.baseURL } });
  const history = (options.history ?? [{ role: 'user', parts: [{ text: 'hi' }] }]) as Content[];
  const config = {
    thinkingConfig: { includeThoughts: true },
    ...(options.tools
      ? { tools: [{ functionDeclarations: Object.entries(TOOL_SCHEMAS).map(([name, schema]) => ({ name, parametersJsonSchema: schema })) }] }
      : {}),
  };
  const out: Observed = { text: '', reasoning: '', toolCalls: [], history };
  const parts: GeminiPart[] = [];
  const read = (response: { candidates?: { content?: Content; finishReason?: string }[]; usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number } }) => {
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      parts.push(part);
      if (part.thoughtSignature) out.signature = part.thoughtSignature;
      if (part.functionCall) {
        const call: ObservedCall = { name: part.functionCall.name ?? '', args: part.functionCall.args ?? {} };
        if (part.functionCall.id) call.id = part.functionCall.id;
        if (part.thoughtSignature) call.signature = part.thoughtSignature;
        out.toolCalls.push(call);
      } else if (part.thought) out.reasoning += part.text ?? '';
      else out.text += part.text ?? '';
    }
    if (candidate?.finishReason) out.finish = candidate.finishReason;
    const usage = response.usageMetadata;
    if (usage) out.usage = { input: usage.promptTokenCount, output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0) };
  };
  try {
    if (options.stream) {
      for await (const chunk of await ai.models.generateContentStream({ model: options.model, contents: history, config })) read(chunk);
    } else {
      read(await ai.models.generateContent({ model: options.model, contents: history, config }));
    }
  } catch (error) {
    out.error = errorOf(error);
    return out;
  }
  out.history = [...history, { role: 'model', parts }];
  return out;
}

async function ollama(options: TurnOptions): Promise<Observed> {
  const client = new Ollama({ host: options.baseURL, headers: { authorization: `Bearer ${options.apiKey}` } });
  const history = (options.history ?? [{ role: 'user', content: 'hi' }]) as OllamaMessage[];
  const tools = options.tools
    ? Object.entries(TOOL_SCHEMAS).map(([name, parameters]) => ({ type: 'function', function: { name, parameters } }))
    : undefined;
  const body = { model: options.model, messages: history, think: true, ...(tools ? { tools } : {}) };
  const out: Observed = { text: '', reasoning: '', toolCalls: [], history };
  const calls: { name: string; arguments: Record<string, unknown> }[] = [];
  const read = (part: { message: OllamaMessage; done: boolean; done_reason?: string; prompt_eval_count?: number; eval_count?: number }) => {
    out.text += part.message.content;
    out.reasoning += part.message.thinking ?? '';
    for (const call of part.message.tool_calls ?? []) calls.push(call.function);
    if (part.done) {
      out.finish = part.done_reason;
      if (part.prompt_eval_count !== undefined || part.eval_count !== undefined) out.usage = { input: part.prompt_eval_count, output: part.eval_count };
    }
  };
  try {
    if (options.stream) {
      for await (const part of await client.chat({ ...body, stream: true } as Parameters<Ollama['chat']>[0] & { stream: true })) read(part);
    } else {
      read(await client.chat({ ...body, stream: false } as Parameters<Ollama['chat']>[0] & { stream: false }));
    }
  } catch (error) {
    out.error = errorOf(error);
    return out;
  }
  out.toolCalls = calls.map((call) => ({ name: call.name, args: call.arguments }));
  const assistant: OllamaMessage = { role: 'assistant', content: out.text };
  if (out.reasoning !== '') assistant.thinking = out.reasoning;
  if (calls.length > 0) assistant.tool_calls = calls.map((call) => ({ function: call }));
  out.history = [...history, assistant];
  return out;
}

const READERS: Record<Sdk, (options: TurnOptions) => Promise<Observed>> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
  ollama,
};

/** One turn through an official SDK. Never throws for an API error: it is reported in `error`. */
export function sdkTurn(sdk: Sdk, options: TurnOptions): Promise<Observed> {
  return READERS[sdk](options);
}

/** The history plus each tool call's result (and a user message when there are no calls), in the SDK's format. */
export function withToolResults(sdk: Sdk, observed: Observed, result: (call: ObservedCall) => unknown): unknown[] {
  const calls = observed.toolCalls;
  const text = (call: ObservedCall) => JSON.stringify(result(call));
  switch (sdk) {
    case 'openai-chat':
      return [...observed.history, ...calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: text(call) }))];
    case 'openai-responses':
      return [...observed.history, ...calls.map((call) => ({ type: 'function_call_output', call_id: call.id, output: text(call) }))];
    case 'anthropic':
      return [...observed.history, { role: 'user', content: calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: text(call) })) }];
    case 'gemini':
      return [
        ...observed.history,
        { role: 'user', parts: calls.map((call) => ({ functionResponse: { name: call.name, ...(call.id ? { id: call.id } : {}), response: { output: result(call) } } })) },
      ];
    case 'ollama':
      return [...observed.history, ...calls.map((call) => ({ role: 'tool', tool_name: call.name, content: text(call) }))];
  }
}

/** The history plus one user message, in the SDK's format. */
export function withUserText(sdk: Sdk, history: unknown[], text: string): unknown[] {
  return [...history, sdk === 'gemini' ? { role: 'user', parts: [{ text }] } : { role: 'user', content: text }];
}

/** What each SDK reports for a normal stop, a tool-call stop and a length stop. */
export const FINISH: Record<Sdk, { stop: string; tools: string; length: string }> = {
  'openai-chat': { stop: 'stop', tools: 'tool_calls', length: 'length' },
  'openai-responses': { stop: 'completed', tools: 'completed', length: 'incomplete:max_output_tokens' },
  anthropic: { stop: 'end_turn', tools: 'tool_use', length: 'max_tokens' },
  gemini: { stop: 'STOP', tools: 'STOP', length: 'MAX_TOKENS' },
  ollama: { stop: 'stop', tools: 'stop', length: 'length' },
};

/** The class each SDK throws for an HTTP 429. */
export const RATE_LIMIT_ERROR: Record<Sdk, string> = {
  'openai-chat': 'RateLimitError',
  'openai-responses': 'RateLimitError',
  anthropic: 'RateLimitError',
  gemini: 'ApiError',
  ollama: 'ResponseError',
};

/** Whether the SDK's wire has a slot for reasoning's opaque state (so it can survive a turn). */
export const CARRIES_SIGNATURE: Record<Sdk, boolean> = {
  'openai-chat': false,
  'openai-responses': true,
  anthropic: true,
  gemini: true,
  ollama: false,
};
