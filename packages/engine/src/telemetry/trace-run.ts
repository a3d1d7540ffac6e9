/**
 * Spans for one run, after the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/):
 *
 *   invoke_agent [agent name]    the run (INTERNAL), from start to its chat-finish
 *   ├─ chat {model}              each model call (CLIENT), from the request to the last event
 *   ├─ execute_tool {tool name}  each tool handler (INTERNAL), from its start to its result
 *   └─ chat {model}              ...
 *
 * Nothing in the loop knows about tracing: the run's model and tool handlers are
 * wrapped, and the run span ends on the `chat-finish` event (the `onEvent` hook). When
 * the run span does not record (no tracer provider registered, or sampled out) the run
 * is left exactly as it was, so an untraced run pays one no-op span per run, nothing per event.
 * Cost, halt reason and step live in our own `parlance.*` namespace; every other name is the
 * conventions' as `@opentelemetry/semantic-conventions/incubating` publishes it (a test reads them
 * from that package). Content (prompts, answers, tool arguments and results, tool definitions, and
 * error messages: a tool's error or an upstream's error body may quote what it was sent, or a key)
 * is recorded only with `recordContent`; without it a failed span says its `error.type` alone.
 */
import type { Event, FinishReason, LanguageModel, Message, ModelCallOptions, ModelRequest, Usage } from '@parlance/protocol';
import type { RunConfig } from '../loop/run-chat.ts';
import type { AnyTool } from '../tools/tool.ts';
import {
  activeContext,
  type Attributes,
  type Context,
  contextWithSpan,
  globalTracer,
  type Link,
  SPAN_KIND_CLIENT,
  SPAN_KIND_INTERNAL,
  type Span,
  STATUS_ERROR,
  type Tracer,
  withContext,
} from './otel-api.ts';
import { secretForms } from '../transport/redact.ts';
import { guardTracer } from './guarded-tracer.ts';
import type { TelemetryOptions } from './telemetry-options.ts';
import { traceFromMetadata, withTrace } from './trace-context.ts';

const TRACER_NAME = '@parlance/engine';

/** Our provider ids -> the convention's `gen_ai.provider.name` values where it names one. */
const PROVIDER_NAMES: Record<string, string> = { google: 'gcp.gemini', mistral: 'mistral_ai', xai: 'x_ai' };

export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/**
 * The tracer to use, or undefined when the app gave none and registered no provider (no spans at all).
 * Guarded: no form of `secrets` (the engine's key-like environment values and credential headers)
 * or of `options.secrets` reaches any span write, content recorded or not.
 */
function tracerOf(options: TelemetryOptions | undefined, secrets: readonly (string | undefined)[]): Tracer | undefined {
  const tracer = options?.tracer ?? globalTracer(TRACER_NAME);
  return tracer && guardTracer(tracer, secretForms([...secrets, ...(options?.secrets ?? [])]));
}

function usageAttributes(usage: Usage | undefined): Attributes {
  const out: Attributes = {};
  if (!usage) return out;
  if (usage.inputTokens !== undefined) out['gen_ai.usage.input_tokens'] = usage.inputTokens;
  if (usage.outputTokens !== undefined) out['gen_ai.usage.output_tokens'] = usage.outputTokens;
  if (usage.cacheReadTokens !== undefined) out['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) out['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
  if (usage.cost !== undefined) out['parlance.usage.cost'] = usage.cost;
  return out;
}

/** The convention's finish reason spellings (`tool_call`, `content_filter`); the rest are the same words. */
function finishReasonValue(reason: FinishReason): string {
  if (reason === 'tool-calls') return 'tool_call';
  if (reason === 'content-filter') return 'content_filter';
  return reason;
}

/** A failed span: its `error.type`, and the error's message only when content is recorded (it is content). */
function fail(span: Span, type: string, message: string, recordContent: boolean): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: STATUS_ERROR, message: recordContent ? message : `Failed: ${type}` });
}

/** `server.address` and `server.port` of a model's endpoint (a provider model knows it; a custom LanguageModel may not). */
function serverAttributes(model: LanguageModel): Attributes {
  const endpoint = (model as { endpoint?: () => string }).endpoint;
  if (typeof endpoint !== 'function') return {};
  try {
    const url = new URL(endpoint());
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    return { 'server.address': url.hostname, ...(port !== undefined ? { 'server.port': port } : {}) };
  } catch {
    return {};
  }
}

function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

function json(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  } catch {
    return String(value);
  }
}

/** Messages in the convention's `gen_ai.input.messages` shape (recorded only on opt-in). */
function conventionMessages(messages: readonly Message[]): unknown[] {
  return messages.map((message) => ({
    role: message.role,
    parts: message.parts.flatMap((part): Record<string, unknown>[] => {
      switch (part.type) {
        case 'text':
          return [{ type: 'text', content: part.text }];
        case 'reasoning':
          return part.redacted ? [] : [{ type: 'reasoning', content: part.text }];
        case 'tool-call':
          return [{ type: 'tool_call', id: part.id, name: part.name, arguments: part.input }];
        case 'tool-result':
          return [{ type: 'tool_call_response', id: part.toolCallId, response: part.output }];
        case 'file':
          return [{ type: 'blob', mime_type: part.mediaType }];
        default:
          return [];
      }
    }),
  }));
}

interface RunState {
  tracer: Tracer;
  recordContent: boolean;
  /** The run span's context: parent of every model and tool span. */
  parent: Context;
  step: number | undefined;
  conversationId: string;
}

/** The model, with a `chat {model}` span around each call. */
function traceModel(model: LanguageModel, state: RunState): LanguageModel {
  const traced = Object.create(model) as LanguageModel & { stream: LanguageModel['stream'] };
  traced.stream = (request, options) => tracedStream(model, request, options, state);
  return traced;
}

function tracedStream(model: LanguageModel, request: Omit<ModelRequest, 'model'>, options: ModelCallOptions | undefined, state: RunState): AsyncIterable<Event> {
  return {
    [Symbol.asyncIterator]() {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': providerName(model.provider),
        'gen_ai.request.model': model.modelId,
        'gen_ai.conversation.id': state.conversationId,
        ...serverAttributes(model),
      };
      if (state.step !== undefined) attributes['parlance.step'] = state.step;
      if (request.maxOutputTokens !== undefined) attributes['gen_ai.request.max_tokens'] = request.maxOutputTokens;
      if (request.temperature !== undefined) attributes['gen_ai.request.temperature'] = request.temperature;
      if (request.topP !== undefined) attributes['gen_ai.request.top_p'] = request.topP;
      if (request.stop?.length) attributes['gen_ai.request.stop_sequences'] = request.stop;
      if (request.output) attributes['gen_ai.output.type'] = 'json';
      if (state.recordContent) {
        if (request.system !== undefined) attributes['gen_ai.system_instructions'] = json([{ type: 'text', content: request.system }]);
        attributes['gen_ai.input.messages'] = json(conventionMessages(request.messages));
        if (request.tools?.length) attributes['gen_ai.tool.definitions'] = json(request.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.inputSchema })));
      }
      const span = state.tracer.startSpan(`chat ${model.modelId}`, { kind: SPAN_KIND_CLIENT, attributes }, state.parent);
      const active = contextWithSpan(state.parent, span);
      const inner = withContext(active, () => model.stream(request, options)[Symbol.asyncIterator]());
      let open = true;
      let text = '';
      const calls: { id: string; name: string; arguments?: unknown }[] = [];
      let finishReason: FinishReason | undefined;
      let error: { code: string; message: string } | undefined;
      const end = (outcome: 'done' | 'stopped' | 'threw', thrown?: unknown) => {
        if (!open) return;
        open = false;
        if (finishReason) span.setAttribute('gen_ai.response.finish_reasons', [finishReasonValue(finishReason)]);
        if (state.recordContent) {
          const parts: unknown[] = [];
          if (text) parts.push({ type: 'text', content: text });
          for (const call of calls) parts.push({ type: 'tool_call', ...call });
          span.setAttribute('gen_ai.output.messages', json([{ role: 'assistant', parts, finish_reason: finishReasonValue(finishReason ?? 'other') }]));
        }
        if (outcome === 'threw') fail(span, errorType(thrown), thrown instanceof Error ? thrown.message : String(thrown), state.recordContent);
        else if (error) fail(span, error.code, error.message, state.recordContent);
        else if (outcome === 'stopped' || finishReason === 'cancelled') fail(span, 'cancelled', 'The model call was stopped before it finished', true);
        span.end();
      };
      const observe = (event: Event) => {
        switch (event.type) {
          case 'message-start':
            if (event.responseId !== undefined) span.setAttribute('gen_ai.response.id', event.responseId);
            span.setAttribute('gen_ai.response.model', event.model ?? event.provenance?.model ?? model.modelId);
            break;
          case 'text-delta':
            if (state.recordContent) text += event.delta;
            break;
          case 'tool-call-start':
            if (state.recordContent) calls.push({ id: event.id, name: event.name });
            break;
          case 'tool-call-end': {
            const call = state.recordContent ? calls.find((c) => c.id === event.id) : undefined;
            if (call) call.arguments = event.input;
            break;
          }
          case 'usage':
            span.setAttributes(usageAttributes(event.usage));
            break;
          case 'error':
            error = { code: event.code, message: event.message };
            break;
          case 'finish':
            // The loop stops reading at `finish`: the response is complete here.
            finishReason = event.finishReason;
            span.setAttributes(usageAttributes(event.usage));
            end('done');
            break;
        }
      };
      return {
        async next(): Promise<IteratorResult<Event>> {
          try {
            const next = await withContext(active, () => inner.next());
            if (next.done) end('done');
            else observe(next.value);
            return next;
          } catch (thrown) {
            end('threw', thrown);
            throw thrown;
          }
        },
        async return(): Promise<IteratorResult<Event>> {
          end('stopped');
          return (await inner.return?.()) ?? { value: undefined, done: true };
        },
      };
    },
  };
}

/** A tool whose handler runs inside an `execute_tool {name}` span. */
function traceTool(tool: AnyTool, state: RunState): AnyTool {
  const execute = tool.execute;
  if (!execute) return tool;
  return {
    ...tool,
    execute: async (input: unknown, context: Parameters<NonNullable<AnyTool['execute']>>[1]) => {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool.name,
        'gen_ai.tool.call.id': context.toolCallId,
        'gen_ai.tool.type': 'function',
      };
      if (tool.description !== undefined) attributes['gen_ai.tool.description'] = tool.description;
      try {
        Object.assign(attributes, tool.spanAttributes?.());
      } catch {
        // A tool's own attributes never fail its call.
      }
      if (state.step !== undefined) attributes['parlance.step'] = state.step;
      if (state.recordContent) attributes['gen_ai.tool.call.arguments'] = json(input);
      const span = state.tracer.startSpan(`execute_tool ${tool.name}`, { kind: SPAN_KIND_INTERNAL, attributes }, state.parent);
      let open = true;
      const end = (error?: unknown) => {
        if (!open) return;
        open = false;
        if (error !== undefined) fail(span, errorType(error), error instanceof Error ? error.message : String(error), state.recordContent);
        span.end();
      };
      // A timeout or a cancel ends the span even when the handler ignores its signal.
      const onAbort = () => end(context.signal.reason ?? new Error('aborted'));
      context.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const output = await withContext(contextWithSpan(state.parent, span), () => execute(input, context));
        if (open && state.recordContent) span.setAttribute('gen_ai.tool.call.result', json(output));
        end();
        return output;
      } catch (error) {
        // `askUser` pauses the run by rejecting with a symbol: a pause, not a failure.
        if (typeof error === 'symbol') {
          span.setAttribute('parlance.tool.outcome', 'ask-user');
          end();
        } else end(error);
        throw error;
      } finally {
        context.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

function traceTools(tools: ReadonlyMap<string, AnyTool>, state: RunState, cache: WeakMap<AnyTool, AnyTool>): ReadonlyMap<string, AnyTool> {
  const out = new Map<string, AnyTool>();
  for (const [name, tool] of tools) {
    let traced = cache.get(tool);
    if (!traced) {
      traced = traceTool(tool, state);
      cache.set(tool, traced);
    }
    out.set(name, traced);
  }
  return out;
}

/**
 * The run's configuration with its model, tools and `onEvent` hook traced, or the
 * same configuration when telemetry is off or the run span would not be recorded.
 * `resumed` says the run answers calls a previous run left pending; `secrets` are kept out of every span.
 */
export function traceRun(config: RunConfig, options: TelemetryOptions | false | undefined, resumed: boolean, secrets: readonly (string | undefined)[] = []): RunConfig {
  if (options === false) return config;
  const tracer = tracerOf(options, secrets);
  if (!tracer) return config;
  const attributes: Attributes = {
    ...options?.attributes,
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': providerName(config.model.provider),
    'gen_ai.request.model': config.model.modelId,
    'gen_ai.conversation.id': config.threadId,
  };
  if (options?.agentName !== undefined) attributes['gen_ai.agent.name'] = options.agentName;
  const links: Link[] = [];
  const previous = traceFromMetadata(config.threadMetadata);
  if (previous) links.push({ context: previous, attributes: { 'parlance.link.type': resumed ? 'resume' : 'previous-run' } });
  const parent = activeContext();
  const name = options?.agentName ? `invoke_agent ${options.agentName}` : 'invoke_agent';
  const span = tracer.startSpan(name, { kind: SPAN_KIND_INTERNAL, attributes, links }, parent);
  if (!span.isRecording()) {
    span.end();
    return config;
  }
  const state: RunState = {
    tracer,
    recordContent: options?.recordContent === true,
    parent: contextWithSpan(parent, span),
    step: undefined,
    conversationId: config.threadId,
  };
  const cache = new WeakMap<AnyTool, AnyTool>();
  const userOnEvent = config.hooks.onEvent;
  const onEvent = (event: Event) => {
    if (event.type === 'step-start') state.step = event.step;
    else if (event.type === 'chat-finish') {
      span.setAttributes({ ...usageAttributes(event.usage), 'parlance.halt_reason': event.haltReason });
      if (event.error) fail(span, event.error.code, event.error.message, state.recordContent);
      span.end();
    }
    userOnEvent?.(event);
  };
  const traced: RunConfig = {
    ...config,
    model: traceModel(config.model, state),
    tools: traceTools(config.tools, state, cache),
    hooks: { ...config.hooks, onEvent },
    threadMetadata: withTrace(config.threadMetadata, span.spanContext()),
    metadataChanged: true,
  };
  const load = config.loadTools;
  if (load) traced.loadTools = async (warn) => traceTools(await load(warn), state, cache);
  return traced;
}

/** One model call outside a run (`generate`): a root `chat {model}` span, no run span. */
export function traceCall(config: RunConfig, options: TelemetryOptions | false | undefined, secrets: readonly (string | undefined)[] = []): RunConfig {
  if (options === false) return config;
  const tracer = tracerOf(options, secrets);
  if (!tracer) return config;
  const state: RunState = {
    tracer,
    recordContent: options?.recordContent === true,
    parent: activeContext(),
    step: undefined,
    conversationId: config.threadId,
  };
  return { ...config, model: traceModel(config.model, state) };
}
