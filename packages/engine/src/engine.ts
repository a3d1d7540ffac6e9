/**
 * `createEngine(defaults)`: one object with the three call shapes, each streaming
 * first. `generate` is one model call, `step` one call plus the tools it asked for,
 * `chat` the loop. The non-streaming forms fold their stream (`collectResponse`,
 * `collect`), so both forms always agree. `generate` with `output` also checks the
 * answer against the schema (once: retrying is the loop's job, so `chat` retries and
 * `generate` reports).
 */
import { withFileRefs } from './files/with-file-refs.ts';
import {
  ParlanceError,
  collectResponse,
  errorEvent,
  createThread,
  runMessages,
  type Event,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type Response,
  type ToolCallPart,
  type ToolResultPart,
} from '@parlance/protocol';
import { resolveModel as defaultResolveModel } from './providers/resolve-model.ts';
import { resolveModelWith } from './providers/resolve-with.ts';
import type { Provider } from './providers/types.ts';
import { CALL_KEYS, ENGINE_KEYS, checkKeys, mergeOptions, type CallOptions, type EngineOptions, type MessageInput, type ModelResolver, type ResumeInput, type SharedOptions } from './options.ts';
import { pickOutputMode } from './output/structured-output.ts';
import { StructuredOutputError, checkOutputText } from './output/check-output.ts';
import { owedCalls } from './loop/pending.ts';
import { collect, type ChatResult } from './loop/result.ts';
import { runChat, type RunConfig } from './loop/run-chat.ts';
import { createContextPolicy } from './context/context-policy.ts';
import type { Resolution } from './loop/run-tool.ts';
import { resolveSchema, type InferSchemaOutput, type SchemaLike } from './tools/schema.ts';
import { isTool, type AnyTool } from './tools/tool.ts';
import { isToolSource, type ToolSource } from './tools/tool-source.ts';
import { traceCall, traceRun } from './telemetry/trace-run.ts';
import { defaultEnv } from './providers/auth.ts';
import { headerSecrets } from './providers/provider-model.ts';
import { envSecrets } from './transport/redact.ts';

/**
 * How many model calls one `chat` makes at most unless `maxSteps` says otherwise.
 *
 * @example
 * createEngine({ maxSteps: DEFAULT_MAX_STEPS * 2 });
 */
export const DEFAULT_MAX_STEPS = 8;
/**
 * How many times a failed model call is retried unless `maxRetries` says otherwise.
 *
 * @example
 * createEngine({ maxRetries: DEFAULT_MAX_RETRIES + 1 });
 */
export const DEFAULT_MAX_RETRIES = 2;
/**
 * How long a tool may run unless `toolTimeoutMs` says otherwise.
 *
 * @example
 * createEngine({ toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS / 2 });
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * The typed output of a call with `output: schema`.
 *
 * @example
 * type Answer = OutputOf<typeof schema>;
 */
export type OutputOf<O> = O extends SchemaLike ? InferSchemaOutput<O> : undefined;

/**
 * What `generate` returns: the model's response, and with `output` the validated object.
 *
 * @example
 * const { output, usage } = await engine.generate({ prompt: 'Name a color', output: z.object({ color: z.string() }) });
 */
export interface GenerateResponse<O = unknown> extends Response {
  /**
   * The answer parsed and validated against `output` (a Standard Schema's output, transforms applied).
   * Absent without `output`, and when the response did not end with an answer to check
   * (finish reason error, cancelled, length, content-filter or refusal, or the model called tools):
   * `finishReason` and `error` say why. An answer that is not the schema's rejects with a
   * `StructuredOutputError` (code `invalid_response`) carrying the issues.
   */
  output?: O;
}

/**
 * What `step` resolves to: the run so far plus this step's response and tool results.
 *
 * @example
 * const { response, haltReason } = await engine.step({ thread, tools });
 */
export interface StepRunResult<O = unknown> extends ChatResult<O> {
  /** The model's response in this step (absent when the run halted before calling the model). */
  response?: Response;
  toolResults: ToolResultPart[];
}

/**
 * What `createEngine` gives: `generate` (one call), `step` (one call and its tools), `chat` (the loop), each also as an event stream.
 *
 * @example
 * for await (const event of engine.streamChat({ prompt: 'Hi' })) if (event.type === 'text-delta') process.stdout.write(event.delta);
 */
export interface Engine {
  readonly defaults: Readonly<EngineOptions>;
  /** One model call; tools are offered but not run. */
  streamGenerate(options: CallOptions<SchemaLike | undefined>): AsyncIterable<Event>;
  generate<O extends SchemaLike | undefined = undefined>(options: CallOptions<O>): Promise<GenerateResponse<OutputOf<O>>>;
  /** One model call plus the tools it asked for (a chat with `maxSteps: 1`). */
  streamStep(options: CallOptions<SchemaLike | undefined>): AsyncIterable<Event>;
  step<O extends SchemaLike | undefined = undefined>(options: CallOptions<O>): Promise<StepRunResult<OutputOf<O>>>;
  /** The multi-step loop. Emits exactly one `chat-finish`. */
  streamChat(options: CallOptions<SchemaLike | undefined>): AsyncIterable<Event>;
  chat<O extends SchemaLike | undefined = undefined>(options: CallOptions<O>): Promise<ChatResult<OutputOf<O>>>;
}

function defaultId(): string {
  return crypto.randomUUID();
}

function toMessage(input: MessageInput, generateId: () => string): Message {
  if ('parts' in input) return input.id ? input : { ...input, id: generateId() };
  if (typeof input.content !== 'string') {
    throw new ParlanceError('invalid_request', 'A message needs `parts` or a string `content`');
  }
  return { id: input.id ?? generateId(), role: input.role, parts: [{ type: 'text', text: input.content }] };
}

function toolMap(tools: readonly AnyTool[], map = new Map<string, AnyTool>()): Map<string, AnyTool> {
  for (const entry of tools) {
    if (!isTool(entry)) throw new ParlanceError('invalid_request', 'Every entry of `tools` must come from tool() or be a tool source');
    if (map.has(entry.name)) throw new ParlanceError('invalid_request', `Two tools are named "${entry.name}"`);
    map.set(entry.name, entry);
  }
  return map;
}

/** Plain tools now; tool sources are read again before every model call. */
function splitTools(entries: SharedOptions['tools']): { tools: Map<string, AnyTool>; sources: ToolSource[] } {
  const plain: AnyTool[] = [];
  const sources: ToolSource[] = [];
  for (const entry of entries ?? []) {
    if (!isTool(entry) && isToolSource(entry)) sources.push(entry);
    else plain.push(entry as AnyTool);
  }
  return { tools: toolMap(plain), sources };
}

/**
 * Plain tools, then each source's current tools. A source never stops a run that does not need it:
 * a tool whose name is already taken (by a plain tool or an earlier source: an MCP server listing
 * a name of the app's own) is left out, and a source that fails to list keeps none of its tools;
 * `warn` is told either way.
 */
function loadTools(plain: ReadonlyMap<string, AnyTool>, sources: ToolSource[]): (warn?: (message: string) => void) => Promise<ReadonlyMap<string, AnyTool>> {
  return async (warn) => {
    const map = new Map(plain);
    for (const source of sources) {
      let listed: readonly AnyTool[];
      try {
        listed = await source.currentTools();
      } catch (error) {
        warn?.(`A tool source could not list its tools, so none of them is offered: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      for (const entry of listed) {
        if (!isTool(entry)) throw new ParlanceError('invalid_request', 'Every entry of `tools` must come from tool() or be a tool source');
        if (map.has(entry.name)) {
          warn?.(`Two tools are named "${entry.name}": the one from a tool source is left out`);
          continue;
        }
        map.set(entry.name, entry);
      }
    }
    return map;
  };
}

function resumeMap(resume: ResumeInput | undefined, messages: Message[]): Map<string, Resolution> {
  const map = new Map<string, Resolution>();
  if (!resume) return map;
  const owed = new Set(owedCalls(messages).map((c) => c.id));
  const add = (id: string, resolution: Resolution) => {
    if (!owed.has(id)) {
      throw new ParlanceError('invalid_request', `Cannot resume tool call "${id}": the thread has no pending call with that id`, {
        path: ['resume'],
      });
    }
    map.set(id, resolution);
  };
  for (const r of resume.toolResults ?? []) add(r.toolCallId, { type: 'result', output: r.output, isError: r.isError ?? false });
  for (const a of resume.approvals ?? []) {
    add(a.toolCallId, a.reason === undefined ? { type: 'approval', approved: a.approved } : { type: 'approval', approved: a.approved, reason: a.reason });
  }
  for (const a of resume.answers ?? []) add(a.toolCallId, { type: 'answer', answer: a.answer });
  return map;
}

function positive(value: number, name: string, allowZero = false): number {
  if (!Number.isFinite(value) || value < (allowZero ? 0 : 1)) {
    throw new ParlanceError('invalid_request', `\`${name}\` must be a ${allowZero ? 'non-negative' : 'positive'} number`);
  }
  return value;
}

/**
 * An engine with defaults (model, tools, system prompt, hooks) for `generate`, `step` and `chat`, each also as a stream.
 *
 * @example
 * const engine = createEngine({ model: 'anthropic:claude-sonnet-4-5', tools: [weather] });
 * const result = await engine.chat({ messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
 * if (result.haltReason === 'approval') console.log(result.pending);
 */
export function createEngine(defaults: EngineOptions = {}): Engine {
  checkKeys(defaults, ENGINE_KEYS, 'createEngine()');
  return buildEngine(defaults, defaults.resolveModel ?? defaultResolveModel);
}

/**
 * `createEngine` whose model strings resolve against `providers` only (`resolveModelWith`), so a
 * bundle holds those providers' dialects and catalog tables and no others: for Workers and other
 * size-bound builds. A model object, or `resolveModel` in the options, works as in `createEngine`.
 *
 * @example
 * import { anthropic } from '@parlance/engine/providers/anthropic';
 * const engine = createEngineWith([anthropic], { model: 'anthropic:claude-sonnet-4-5', tools: [weather] });
 */
export function createEngineWith(providers: readonly Provider[], defaults: EngineOptions = {}): Engine {
  checkKeys(defaults, ENGINE_KEYS, 'createEngineWith()');
  return buildEngine(defaults, defaults.resolveModel ?? resolveModelWith(providers));
}

function buildEngine(defaults: EngineOptions, resolver: ModelResolver): Engine {
  const generateId = defaults.generateId ?? defaultId;

  const resolve = (spec: string | LanguageModel | undefined): LanguageModel => {
    if (spec === undefined) throw new ParlanceError('invalid_request', 'No model: pass `model` to the call or to createEngine()');
    if (typeof spec !== 'string') return spec;
    const options: { env?: Record<string, string | undefined>; fetch?: typeof globalThis.fetch } = {};
    if (defaults.env) options.env = defaults.env;
    if (defaults.fetch) options.fetch = defaults.fetch;
    return resolver(spec, options);
  };
  // File references are resolved per model call, before the dialect encodes (files/with-file-refs.ts).
  const model = (spec: string | LanguageModel | undefined): LanguageModel => (defaults.files ? withFileRefs(resolve(spec), defaults.files) : resolve(spec));

  /** Resolves one call's options into the loop's configuration (throws on bad options). */
  const configure = (call: CallOptions<SchemaLike | undefined>, maxStepsOverride?: number, kind: 'run' | 'call' = 'run'): RunConfig => {
    checkKeys(call, CALL_KEYS, 'the call options');
    const o: SharedOptions = mergeOptions(defaults, call);
    const resolved = model(o.model);
    // Empty assistant messages are left out and failed turns kept by the protocol's one rule
    // (`runMessages`), which the client applies too: both fold the run's events onto the same list.
    const given = [...(call.thread?.messages ?? []), ...(call.messages ?? []).map((m) => toMessage(m, generateId))];
    if (call.prompt !== undefined) given.push(toMessage({ role: 'user', content: call.prompt }, generateId));
    const messages = runMessages(given);
    const { tools, sources } = splitTools(o.tools);
    const base: RunConfig['base'] = {};
    if (o.system !== undefined) base.system = o.system;
    if (tools.size > 0) base.tools = [...tools.values()].map((t) => t.definition);
    const copy = ['toolChoice', 'maxOutputTokens', 'temperature', 'topP', 'stop', 'thinking', 'cache', 'extra'] as const;
    for (const key of copy) if (o[key] !== undefined) (base as Record<string, unknown>)[key] = o[key];
    const config: RunConfig = {
      model: resolved,
      threadId: call.thread?.id ?? generateId(),
      messages,
      base,
      tools,
      hooks: { ...pick(o) },
      maxSteps: maxStepsOverride ?? positive(o.maxSteps ?? DEFAULT_MAX_STEPS, 'maxSteps'),
      maxRetries: positive(o.maxRetries ?? DEFAULT_MAX_RETRIES, 'maxRetries', true),
      toolTimeoutMs: positive(o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, 'toolTimeoutMs'),
      onToolError: o.onToolError ?? 'continue',
      resume: resumeMap(call.resume, messages),
      generateId,
    };
    if (defaults.maxQueuedBytes !== undefined) config.maxQueuedBytes = positive(defaults.maxQueuedBytes, 'maxQueuedBytes');
    if (sources.length > 0) config.loadTools = loadTools(tools, sources);
    if (call.thread?.metadata) config.threadMetadata = call.thread.metadata;
    if (call.signal) config.signal = call.signal;
    if (call.checkpoint) config.checkpoint = call.checkpoint;
    if (o.headers) config.headers = o.headers;
    if (o.haltWhen) config.haltWhen = o.haltWhen;
    config.context = createContextPolicy(o.context, resolved, generateId);
    if (call.output !== undefined) {
      config.output = { schema: resolveSchema(call.output, 'output'), mode: pickOutputMode(o.outputMode, resolved.dialect, o.thinking) };
    }
    // What the span guard keeps out: where provider keys come from (the environment) and credential headers.
    const secrets = [...envSecrets(defaults.env ?? defaultEnv()), ...headerSecrets(o.headers ?? {}, undefined)];
    return kind === 'run' ? traceRun(config, o.telemetry, call.resume !== undefined, secrets) : traceCall(config, o.telemetry, secrets);
  };

  const streamChat = (call: CallOptions<SchemaLike | undefined>) => runChat(configure(call));
  const streamStep = (call: CallOptions<SchemaLike | undefined>) => runChat(configure(call, 1));

  const generateEvents = (config: RunConfig): AsyncIterable<Event> => {
    const request: Omit<ModelRequest, 'model'> = { ...config.base, messages: config.messages };
    const load = config.loadTools;
    if (config.output) request.output = { type: 'json', schema: config.output.schema.jsonSchema, name: 'output' };
    const messageId = generateId();
    const provenance = { provider: config.model.provider, model: config.model.modelId, dialect: config.model.dialect };
    const options: { signal?: AbortSignal; headers?: Record<string, string> } = {};
    if (config.signal) options.signal = config.signal;
    if (config.headers) options.headers = config.headers;
    return (async function* () {
      if (load) {
        const tools = await load();
        if (tools.size > 0) request.tools = [...tools.values()].map((t) => t.definition);
      }
      let started = false;
      let sent = request;
      if (config.context) {
        // The context policy (and the thread's summaries) apply to one call as to the loop; no retry here.
        const summaries: Event[] = [];
        try {
          sent = await config.context.fit(request, { emit: (e) => summaries.push(e), signal: config.signal ?? new AbortController().signal });
        } catch (thrown) {
          const error = ParlanceError.from(thrown);
          yield { type: 'message-start', messageId, provenance } satisfies Event;
          yield errorEvent(error);
          yield { type: 'finish', finishReason: 'error', usage: {} } satisfies Event;
          return;
        }
        yield* summaries;
      }
      for await (const event of config.model.stream(sent, options)) {
        if (event.type === 'message-start') {
          if (!started) yield { ...event, messageId, provenance: event.provenance ?? provenance };
          started = true;
          continue;
        }
        if (!started) yield { type: 'message-start', messageId, provenance } satisfies Event;
        started = true;
        yield event;
      }
    })();
  };

  const streamGenerate = (call: CallOptions<SchemaLike | undefined>) => generateEvents(configure(call, undefined, 'call'));

  return {
    defaults,
    streamGenerate,
    // async, so bad options reject the promise rather than throw synchronously.
    async generate<O extends SchemaLike | undefined = undefined>(call: CallOptions<O>) {
      const config = configure(call, undefined, 'call');
      const response: GenerateResponse<OutputOf<O>> = await collectResponse(generateEvents(config));
      if (call.output === undefined || !config.output || !hasAnswer(response)) return response;
      const checked = await checkOutputText(call.output, config.output.schema.jsonSchema, textOf(response));
      if (!checked.ok) throw new StructuredOutputError(checked.issues, response);
      response.output = checked.value as OutputOf<O>;
      return response;
    },
    streamStep,
    async step<O extends SchemaLike | undefined = undefined>(call: CallOptions<O>) {
      const result = await collect<OutputOf<O>>(streamStep(call));
      const first = result.steps[0];
      const out: StepRunResult<OutputOf<O>> = { ...result, toolResults: first?.toolResults ?? [] };
      if (first) out.response = first.response;
      return out;
    },
    streamChat,
    chat: async <O extends SchemaLike | undefined = undefined>(call: CallOptions<O>) => collect<OutputOf<O>>(streamChat(call)),
  };
}

/** Whether a response ended with an answer to check: the same cases in which `chat` validates. */
function hasAnswer(response: Response): boolean {
  const stopped = ['error', 'cancelled', 'length', 'content-filter', 'refusal'];
  if (stopped.includes(response.finishReason)) return false;
  return !response.message.parts.some((p): p is ToolCallPart => p.type === 'tool-call' && !p.providerExecuted);
}

function textOf(response: Response): string {
  return response.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function pick(o: SharedOptions): RunConfig['hooks'] {
  const hooks: RunConfig['hooks'] = {};
  if (o.beforeRequest) hooks.beforeRequest = o.beforeRequest;
  if (o.beforeToolCall) hooks.beforeToolCall = o.beforeToolCall;
  if (o.afterToolCall) hooks.afterToolCall = o.afterToolCall;
  if (o.onEvent) hooks.onEvent = o.onEvent;
  if (o.onFinish) hooks.onFinish = o.onFinish;
  return hooks;
}

/**
 * A new thread from messages (ids generated where missing).
 *
 * @example
 * const thread = threadFrom([{ role: 'user', content: 'Hi' }]);
 */
export function threadFrom(messages: MessageInput[], id: string = defaultId(), generateId: () => string = defaultId) {
  return createThread(id, messages.map((m) => toMessage(m, generateId)));
}
