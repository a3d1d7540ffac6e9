/**
 * Options for every engine call. Precedence: the call's value, then the engine's
 * defaults, then the library default. A key nobody knows is an `invalid_request`
 * error (a typo must not silently do nothing); provider-specific fields go in `extra`.
 */
import type { FileSource } from './files/file-source.ts';
import {
  ParlanceError,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type ResumeInput,
  type Role,
  type Thread,
} from '@parlance/protocol';
import type { ContextOptions } from './context/context-policy.ts';
import type { RunCheckpoint } from './loop/checkpoint.ts';
import type { ChatResult, StepResult } from './loop/result.ts';
import type { SchemaLike } from './tools/schema.ts';
import type { TelemetryOptions } from './telemetry/telemetry-options.ts';
import type { AnyTool } from './tools/tool.ts';
import type { ToolSource } from './tools/tool-source.ts';

/**
 * How a string model spec becomes a model (the providers module's `resolveModel` by default).
 *
 * @example
 * createEngine({ resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { acme } }) });
 */
export type ModelResolver = (
  spec: string,
  options: { env?: Record<string, string | undefined>; fetch?: typeof globalThis.fetch },
) => LanguageModel;

/**
 * A tool call as hooks see it.
 *
 * @example
 * beforeToolCall: (call: ToolCallInfo) => (call.name === 'shell' ? { block: 'disabled' } : undefined)
 */
export interface ToolCallInfo {
  toolCallId: string;
  name: string;
  input: unknown;
}

/**
 * `beforeToolCall` may block a call (the model gets the reason as an error result) or replace its input.
 *
 * @example
 * beforeToolCall: ({ input }) => ({ input: { ...(input as object), limit: 10 } }) // or { block: 'reason' }
 */
export type BeforeToolCallResult = void | undefined | { block: string | true } | { input: unknown };

/**
 * A tool's result as `afterToolCall` sees it (and may replace).
 *
 * @example
 * afterToolCall: (_call, result: ToolResultInfo) => (result.isError ? { output: 'The tool failed; try another way.', isError: true } : result)
 */
export interface ToolResultInfo {
  output: unknown;
  isError: boolean;
}

/**
 * What a tool's thrown error does to the run: `continue` (the model sees the error), `halt`, or a function that decides.
 *
 * @example
 * createEngine({ onToolError: (error, call) => (call.name === 'pay' ? 'halt' : 'continue') });
 */
export type ToolErrorPolicy = 'continue' | 'halt' | ((error: unknown, call: ToolCallInfo) => 'continue' | 'halt');

/**
 * Callbacks around requests and tool calls (see each member).
 *
 * @example
 * createEngine({ beforeToolCall: (call) => (call.name === 'delete_all' ? { block: 'not allowed here' } : undefined) });
 */
export interface Hooks {
  /** Sees (and may replace) every request before it goes to the model. */
  beforeRequest?: (
    request: Omit<ModelRequest, 'model'>,
    context: { step: number; model: LanguageModel },
  ) => void | Omit<ModelRequest, 'model'> | Promise<void | Omit<ModelRequest, 'model'>>;
  beforeToolCall?: (call: ToolCallInfo) => BeforeToolCallResult | Promise<BeforeToolCallResult>;
  /** Sees (and may replace) a tool's result before it is recorded. */
  afterToolCall?: (call: ToolCallInfo, result: ToolResultInfo) => void | ToolResultInfo | Promise<void | ToolResultInfo>;
  /** Every event, as it is emitted. */
  onEvent?: (event: import('@parlance/protocol').Event) => void;
  /** The run's result, before its `chat-finish` event is emitted. */
  onFinish?: (result: ChatResult) => void | Promise<void>;
}

/**
 * Settings an engine can hold as defaults and a call can override.
 *
 * @example
 * const shared: SharedOptions = { model: 'openai:gpt-5-mini', maxSteps: 4, temperature: 0.3 };
 */
export interface SharedOptions
  extends Hooks,
    Pick<ModelRequest, 'system' | 'toolChoice' | 'maxOutputTokens' | 'temperature' | 'topP' | 'stop' | 'thinking' | 'cache'> {
  model?: string | LanguageModel;
  /** Tools, and sources of tools that may change between rounds (an MCP server's list). */
  tools?: (AnyTool | ToolSource)[];
  /** Provider-specific request fields, merged verbatim into the body (engine extras, then the call's). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Model calls per run (default 8). */
  maxSteps?: number;
  /** Structured-output repair attempts after the first (default 2). */
  maxRetries?: number;
  /** Default per-tool timeout in ms (default 60000). */
  toolTimeoutMs?: number;
  onToolError?: ToolErrorPolicy;
  /** Halts the run after a step for which this returns true. */
  haltWhen?: (step: StepResult) => boolean;
  /**
   * How structured output is requested: the dialect's native mode or a forced tool. Default
   * ('auto'): native everywhere except Anthropic, which gets a forced tool, unless thinking is
   * on: Anthropic rejects thinking with a forced tool, so with thinking the native output format
   * (`output_config.format`) is used and thinking stays on. An explicit 'tool' with thinking on
   * Anthropic turns thinking off for that request (reported as a `warning` event).
   */
  outputMode?: 'auto' | 'native' | 'tool';
  /**
   * What to do when the thread outgrows the model's context window: drop the oldest turns,
   * summarize them, or fail early (see ContextOptions). Without it a request is sent as it
   * is and a provider's refusal ends the run with `context_length_exceeded`.
   */
  context?: ContextOptions;
  /** OpenTelemetry spans for runs, model calls and tool calls (default on, a no-op with no tracer registered); `false` turns them off. */
  telemetry?: TelemetryOptions | false;
}

/**
 * The engine's defaults (model, tools, system prompt, limits, hooks) plus where keys and fetch come from.
 *
 * @example
 * const options: EngineOptions = { model: 'openai:gpt-5-mini', system: 'Be brief.', maxSteps: 4, env: workerEnv };
 */
export interface EngineOptions extends SharedOptions {
  resolveModel?: ModelResolver;
  env?: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
  /** Ids for messages and threads (default: crypto.randomUUID). */
  generateId?: () => string;
  /**
   * Bytes of events a run holds for a reader that has not taken them yet (default 256 KiB, counted
   * as streamed text plus 64 bytes per event). Past it the engine stops reading the model's stream
   * until the reader catches up, so a slow reader (a server writing each event to Redis) never
   * makes a fast or endless upstream pile up in memory.
   */
  maxQueuedBytes?: number;
  /**
   * Where the files a thread references (`FilePart.ref`, stored by the server's `POST /files`) are
   * read from when a request is encoded: inline bytes, or a URL where the provider fetches files
   * itself (see `resolveFileRefs`). Without it, a thread holding a reference fails its model call.
   */
  files?: FileSource;
}

/**
 * A message as callers may write it: a full Message, or a role and a string.
 *
 * @example
 * const messages: MessageInput[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }];
 */
export type MessageInput = Message | { role: Role; content: string; id?: string };

/**
 * What continues a paused run: the protocol's contract type, the same the server validates and the client sends.
 *
 * @example
 * await engine.chat({ thread, resume: { approvals: [{ toolCallId: 'call_1', approved: true }] } });
 */
export type { ResumeInput };

/**
 * One call: the conversation (`messages`, `thread` and/or `prompt`), an `output` schema, a signal, a `resume`, and any default overridden.
 *
 * @example
 * await engine.chat({ thread, prompt: 'And tomorrow?', signal: AbortSignal.timeout(30_000) });
 */
export interface CallOptions<O extends SchemaLike | undefined = undefined> extends SharedOptions {
  /** The conversation so far (use `thread` to keep its id). */
  messages?: MessageInput[];
  thread?: Thread;
  /** A user message appended after `messages` / `thread`. */
  prompt?: string;
  output?: O;
  signal?: AbortSignal;
  resume?: ResumeInput;
  /**
   * Go on with a run another process started and stopped (a crash, a deploy): pass the same thread,
   * resume and options it was given, and the events it recorded. The stream then holds only what
   * follows: a model call that was cut is withdrawn with a `step-restarted` event and made again; a
   * tool call that was running is run again only if its tool is `idempotent` (else it gets the error
   * result "interrupted: not run again"); finished steps and recorded results are kept.
   */
  checkpoint?: RunCheckpoint;
}

const SHARED_KEYS = [
  'model',
  'system',
  'tools',
  'toolChoice',
  'maxOutputTokens',
  'temperature',
  'topP',
  'stop',
  'thinking',
  'cache',
  'extra',
  'headers',
  'maxSteps',
  'maxRetries',
  'toolTimeoutMs',
  'onToolError',
  'haltWhen',
  'outputMode',
  'context',
  'telemetry',
  'beforeRequest',
  'beforeToolCall',
  'afterToolCall',
  'onEvent',
  'onFinish',
] as const satisfies readonly (keyof SharedOptions)[];

export const ENGINE_KEYS: readonly string[] = [...SHARED_KEYS, 'resolveModel', 'env', 'fetch', 'generateId', 'maxQueuedBytes', 'files'];
export const CALL_KEYS: readonly string[] = [...SHARED_KEYS, 'messages', 'thread', 'prompt', 'output', 'signal', 'resume', 'checkpoint'];

export function checkKeys(options: object, known: readonly string[], where: string): void {
  for (const key of Object.keys(options)) {
    if ((options as Record<string, unknown>)[key] === undefined) continue;
    if (!known.includes(key)) {
      throw new ParlanceError(
        'invalid_request',
        `Unknown option "${key}" in ${where}. Known options: ${known.join(', ')}. Put provider-specific fields in "extra".`,
        { path: [key], retryable: false },
      );
    }
  }
}

/** Call value, then engine default: the resolved shared settings of one call. */
export function mergeOptions(defaults: SharedOptions, call: SharedOptions): SharedOptions {
  const out: SharedOptions = {};
  for (const key of SHARED_KEYS) {
    const value = call[key] !== undefined ? call[key] : defaults[key];
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  if (defaults.extra || call.extra) out.extra = { ...defaults.extra, ...call.extra };
  if (defaults.headers || call.headers) out.headers = { ...defaults.headers, ...call.headers };
  return out;
}
