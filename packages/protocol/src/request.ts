/**
 * A normalized model request: what the engine hands a dialect to encode. Dialects
 * map each field to their API and say in a comment where it is documented.
 */
import type { Event } from './events.ts';
import type { Message, Provenance } from './message.ts';

/**
 * A JSON Schema object (draft 2020-12 or 07 subset, as providers accept).
 *
 * @example
 * const schema: JSONSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
 */
export type JSONSchema = Record<string, unknown>;

/**
 * A tool as the model sees it: name, description, JSON Schema of its input.
 *
 * @example
 * const def: ToolDefinition = { name: 'weather', description: 'Weather for a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };
 */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: JSONSchema;
  /** Ask for strict schema adherence where the API supports it. */
  strict?: boolean;
}

/**
 * Whether and which tool the model must call.
 *
 * @example
 * const choice: ToolChoice = { type: 'tool', name: 'weather' };
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

/**
 * How hard a reasoning model thinks (mapped to each provider's setting).
 *
 * @example
 * const request = { ...base, thinking: { effort: 'low' as ReasoningEffort } };
 */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * A provider-neutral thinking setting. Each dialect maps it: effort levels for
 * OpenAI, token budgets for Anthropic and Gemini 2.5, levels for Gemini 3, a flag for Ollama.
 * `false` turns thinking off where the API allows it.
 *
 * @example
 * const thinking: ThinkingSetting = { effort: 'medium' };
 */
export type ThinkingSetting = false | { effort?: ReasoningEffort; budgetTokens?: number };

/**
 * Asks for a JSON answer matching a schema.
 *
 * @example
 * const output: StructuredOutput = { type: 'json', schema: { type: 'object', properties: { color: { type: 'string' } } }, name: 'color' };
 */
export interface StructuredOutput {
  type: 'json';
  schema: JSONSchema;
  name?: string;
  description?: string;
  /** Strict schema adherence where the API supports it (default true). */
  strict?: boolean;
}

/**
 * Prompt-cache hints. Dialects with explicit breakpoints (Anthropic) place them; others pass keys.
 *
 * @example
 * await engine.chat({ prompt, cache: { breakpoints: true } });
 */
export interface CacheSetting {
  /** Mark the system prompt, the tool list and the last message as cacheable (default true when `cache` is set). */
  breakpoints?: boolean;
  /** A cache routing key (OpenAI `prompt_cache_key`). */
  key?: string;
  /** Time to live where the API lets one choose (Anthropic: '5m' | '1h'). */
  ttl?: '5m' | '1h';
}

/**
 * One model call in Parlance's terms, which every dialect encodes: messages, system prompt, tools, output schema, sampling, thinking.
 *
 * @example
 * const request: ModelRequest = { model: 'gpt-5-mini', system: 'Be brief.', messages, maxOutputTokens: 400 };
 */
export interface ModelRequest {
  model: string;
  /** A system prompt; system-role messages in `messages` are joined after it. */
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  thinking?: ThinkingSetting;
  output?: StructuredOutput;
  cache?: CacheSetting;
  /** Merged last into the body, verbatim: provider-specific extras. */
  extra?: Record<string, unknown>;
}

/**
 * Per-call transport options: an abort signal and extra headers.
 *
 * @example
 * model.stream(request, { signal: AbortSignal.timeout(60_000), headers: { 'x-request-id': id } });
 */
export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Extra HTTP headers for this call (transport-level; ignored by in-memory models). */
  headers?: Record<string, string>;
  /**
   * `false` asks the provider for one JSON body instead of a stream (a gateway answering a caller
   * who asked for one). The events are the same, arriving once the body is read. Default `true`;
   * models that can only stream ignore it.
   */
  stream?: boolean;
  /**
   * Called with the provider's JSON body, as parsed, when `stream: false` got one (before its events),
   * with the model that sent it: a gateway passes it to a caller of the same API unchanged. A fallback
   * chain may call it once per model it tried.
   */
  onBody?: (body: unknown, from: Provenance) => void;
  /**
   * Called with each chunk of the provider's streamed body as read (SSE or NDJSON bytes, unchanged),
   * before the events decoded from it, with the model that sent it: a gateway forwards them to a
   * caller of the same API. `from` is one object per attempt (a retry or a fallback chain's next
   * model sends a new one), so a caller can drop what an attempt that failed had sent.
   */
  onBytes?: (chunk: Uint8Array, from: Provenance) => void;
  /**
   * With `onBytes`: the dialect whose bytes the caller passes on unchanged, taking the answer's text
   * from them (a gateway relaying a stream in its caller's format). A model that speaks it may leave
   * text and reasoning deltas out of its events where its decoder can skip them unparsed (the
   * dialects' `DecoderOptions.textDeltas`); blocks still start and end, and tool calls, usage, the
   * finish and failures arrive as always. An attempt in another dialect (a fallback chain's next
   * model) decodes everything, since its events are re-encoded, as does a provider with its own
   * `modifyEvents`.
   */
  relayDialect?: string;
}

/**
 * Anything that turns a request into a protocol event stream: a real provider
 * (engine), a scripted fake (testing), a remote server. The stream never throws:
 * failures arrive as an `error` event followed by `finish` with reason 'error'.
 *
 * @example
 * const echo: LanguageModel = { provider: 'echo', modelId: 'echo', dialect: 'echo', async *stream() { yield { type: 'finish', finishReason: 'stop', usage: {} }; } };
 */
export interface LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  readonly dialect: string;
  stream(request: Omit<ModelRequest, 'model'>, options?: ModelCallOptions): AsyncIterable<Event>;
}
