/**
 * The gateway: any client that speaks one provider's API (its official SDK, or any tool built
 * on one) reaches any configured provider through the dialects. A request arrives in the
 * caller's wire format, is decoded to the protocol (`decodeRequest`), routed to a provider
 * model by the routing table, and the provider's events are encoded back in the caller's
 * format (`createResponseEncoder` / `encodeResponse`), errors included, with the status the
 * caller's own provider would send. Where a case is not specified, the gateway behaves as the
 * caller's provider behaves toward its own SDK.
 *
 * Routes (as the official SDKs call them; mount under any prefix):
 *   POST /v1/chat/completions                      OpenAI Chat Completions
 *   POST /v1/responses                             OpenAI Responses
 *   POST /v1/messages                              Anthropic Messages
 *   POST /v1beta/models/{model}:generateContent    Gemini (and :streamGenerateContent?alt=sse)
 *   POST /api/chat                                 Ollama
 *   GET  /v1/models                                the caller's models, in OpenAI's shape
 */
import { getDialect, type DecodedRequest, type Dialect, type DialectId } from '@parlance/dialects';
import type { ResolveModelOptions } from '@parlance/engine';
import {
  collectResponse,
  type ErrorCode,
  type ErrorEvent,
  type Event,
  type FinishReason,
  type LanguageModel,
  type ModelRequest,
  ParlanceError,
  type Usage,
} from '@parlance/protocol';
import { Hono, type Context } from 'hono';
import { principalOf } from '../edge/caller.ts';
import { createEdge } from '../edge/edge.ts';
import { jsonOf } from '../edge/json-body.ts';
import type { AllowedOrigins } from '../edge/origin.ts';
import { createSealer, openEnvelopes } from './envelope.ts';
import { createWindowLimiter, gatewayKeyOf, type GatewayPrincipal } from './keys.ts';
import { createRouter, dialectsOf, type GatewayRoute } from './routing.ts';

/**
 * What a finished gateway call reports (for usage and cost per key).
 *
 * @example
 * ```ts
 * createGateway({ routes, authorize, onFinish: (f: GatewayFinish) => bill(f.principal.id, f.usage.cost ?? 0) });
 * ```
 */
export interface GatewayFinish {
  principal: GatewayPrincipal;
  /** The model name the caller sent. */
  model: string;
  /** The provider and model that answered (after any fallback). */
  provider: string;
  providerModel: string;
  /** The caller's dialect and the provider's. */
  dialect: DialectId;
  upstreamDialect: string;
  stream: boolean;
  finishReason: FinishReason;
  /** Token counts, and `cost` in US dollars when the model's prices are known. */
  usage: Usage;
  error?: { code: ErrorCode; message: string };
  durationMs: number;
}

/**
 * The gateway's configuration: routes, key mapping, limits, reporting.
 *
 * @example
 * ```ts
 * const options: GatewayOptions = { routes: { fast: 'openai:gpt-5-mini' }, authorize: staticKeys({ 'sk-1': { id: 'me' } }) };
 * ```
 */
export interface GatewayOptions {
  /** Caller-facing model names -> provider models or fallback chains. Also the model allow-list. */
  routes: Record<string, GatewayRoute>;
  /** Let callers name any `provider:model` beyond the table (default false). */
  allowProviderModels?: boolean;
  /**
   * Provider settings for resolving `provider:model` targets (keys from the environment, fetch, custom providers).
   * Retries are off by default: the caller's SDK retries by itself, as it would against its provider, and a
   * fallback chain moves on at once. Set `retry` here or on a route to retry upstream too.
   */
  providers?: ResolveModelOptions;
  /**
   * Maps the caller's gateway key (whichever header its SDK sent; undefined when none) to a
   * principal; undefined refuses the call with the caller's 401. See `staticKeys`.
   */
  authorize: (key: string | undefined, request: Request) => GatewayPrincipal | undefined | Promise<GatewayPrincipal | undefined>;
  /** An extra per-call check (default: the principal's `models` list, if any). */
  allowModel?: (principal: GatewayPrincipal, model: string) => boolean | Promise<boolean>;
  /**
   * A rate limit: `{ retryAfterSeconds }` refuses with the caller's 429 (default: the
   * principal's `rateLimit`, counted in memory per instance).
   */
  rateLimit?: (principal: GatewayPrincipal, request: Request) => undefined | { retryAfterSeconds?: number } | Promise<undefined | { retryAfterSeconds?: number }>;
  onFinish?: (finish: GatewayFinish) => void | Promise<void>;
  /** Request bodies larger than this are refused with 413 in the caller's format (default 4 MiB). */
  maxBodyBytes?: number;
  /** Arrays and objects in a request body may nest this deep (default 64); deeper is a 400 in the caller's format. */
  maxJsonDepth?: number;
  /**
   * Origins allowed to call from a browser, besides the gateway's own (default '*': callers are
   * SDKs that send their key in a header). A request with no `Origin` is always let through.
   */
  allowedOrigins?: AllowedOrigins;
  /** A path prefix when the app is not mounted by a parent. */
  basePath?: string;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_MAX_DEPTH = 64;

/**
 * The caller's format, from the path it called (under any mount prefix) as the routes below map
 * it; `/v1/models` answers the Anthropic SDK (it sends `anthropic-version`) in its own shape.
 */
function callerDialect(c: Context): DialectId {
  const path = c.req.path;
  if (path.endsWith('/v1/chat/completions')) return 'openai_completions';
  if (path.endsWith('/v1/responses')) return 'openai_responses';
  if (path.endsWith('/v1/messages')) return 'anthropic_messages';
  if (path.endsWith('/api/chat') || path.endsWith('/api/tags')) return 'ollama_chat';
  if (path.includes('/v1beta/')) return 'google_gemini';
  return c.req.header('anthropic-version') !== undefined ? 'anthropic_messages' : 'openai_completions';
}

/** Events that carry no answer yet: an upstream failure before any content becomes an HTTP error. */
const PREAMBLE = new Set<Event['type']>(['message-start', 'usage']);

const RESPONSE_ID_PREFIX: Record<DialectId, string> = {
  openai_completions: 'chatcmpl-',
  openai_responses: 'resp_',
  anthropic_messages: 'msg_',
  google_gemini: '',
  ollama_chat: '',
};

/** A caller-chosen name as echoed in an error message: bounded, so a huge name is not sent back whole. */
function shown(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

function errorResponse(dialect: Dialect, code: ErrorCode, message: string, status?: number, headers: Record<string, string> = {}): Response {
  const encoded = dialect.encodeError(status === undefined ? { code, message } : { code, message, status });
  return new Response(encoded.body, { status: encoded.status, headers: { ...encoded.headers, ...headers } });
}

function statusOf(error: { code: ErrorCode; status?: number | undefined }): number | undefined {
  // The caller's provider picks the status for a code; a known upstream status is kept.
  return error.status !== undefined && error.status >= 400 ? error.status : undefined;
}

/**
 * The upstream's failure in the caller's format, with the provider's own Retry-After when it sent one
 * (`retry-after` in seconds, as every SDK reads it, and `retry-after-ms` for the OpenAI and Anthropic SDKs,
 * which prefer it); none is invented when the provider sent none.
 */
function upstreamError(dialect: Dialect, error: ErrorEvent): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs) && error.retryAfterMs >= 0) {
    headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
    headers['retry-after-ms'] = String(Math.round(error.retryAfterMs));
  }
  return errorResponse(dialect, error.code, error.message, statusOf(error), headers);
}

interface Call {
  dialect: Dialect;
  principal: GatewayPrincipal;
  name: string;
  model: LanguageModel;
  request: ModelRequest;
  stream: boolean;
  /** Chat Completions: the caller asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  signal: AbortSignal;
  started: number;
}

/** What the report needs from a stream, kept as events pass (a long answer's deltas are not kept). */
interface Tally {
  usage: Usage;
  finishReason?: FinishReason;
  provenance?: { provider: string; model: string; dialect: string };
}

function tally(into: Tally, event: Event): void {
  if (event.type === 'usage' || event.type === 'finish') into.usage = { ...into.usage, ...event.usage };
  if (event.type === 'finish') into.finishReason = event.finishReason;
  // The model that answered says so in its message-start (a fallback chain may have moved on).
  else if (event.type === 'message-start' && event.provenance) into.provenance = event.provenance;
}

function finishOf(call: Call, seen: Tally, error: ErrorEvent | undefined): GatewayFinish {
  const answered = seen.provenance ?? { provider: call.model.provider, model: call.model.modelId, dialect: call.model.dialect };
  const out: GatewayFinish = {
    principal: call.principal,
    model: call.name,
    provider: answered.provider,
    providerModel: answered.model,
    dialect: call.dialect.id,
    upstreamDialect: answered.dialect,
    stream: call.stream,
    finishReason: seen.finishReason ?? (error ? 'error' : 'other'),
    usage: seen.usage,
    durationMs: Date.now() - call.started,
  };
  if (error) out.error = { code: error.code, message: error.message };
  return out;
}

/** Runs the call: the events, with the caller's view of reasoning state applied. */
async function* upstream(call: Call): AsyncGenerator<Event> {
  const { model: _model, ...request } = call.request;
  const sealer = createSealer(call.dialect.id);
  for await (const event of call.model.stream(request, { signal: call.signal })) yield* sealer.push(event);
  yield* sealer.flush();
}


/** At most this many events, or this long, are held back waiting for the upstream's input count. */
const HOLD_EVENTS = 64;
const HOLD_MS = 250;

/**
 * Anthropic's `message_start` carries the prompt's token count, and clients read it there only
 * (LangChain's ChatAnthropic counts `input_tokens: 0` from `message_delta`). Upstreams that report
 * usage after the first content (Gemini in the same chunk, Chat Completions, Responses and
 * Ollama at the end) are held for the count, bounded by `HOLD_EVENTS` events and `HOLD_MS`: a
 * short answer starts with the count, a long one starts on time with what is known (the
 * closing `message_delta` always has the whole count, as Anthropic's does).
 */
async function holdForInputCount(call: Call, held: Event[], take: () => Promise<IteratorResult<Event>>, counts: Tally): Promise<void> {
  if (call.dialect.id !== 'anthropic_messages' || held.at(-1)?.type === 'error') return;
  const since = Date.now();
  for (let n = 0; counts.usage.inputTokens === undefined && n < HOLD_EVENTS && Date.now() - since < HOLD_MS; n++) {
    const next = await take();
    if (next.done) return;
    held.push(next.value);
    if (next.value.type === 'error' || next.value.type === 'finish') return;
  }
}

async function answer(call: Call, options: GatewayOptions): Promise<Response> {
  const encoderOptions = { model: call.name, responseId: RESPONSE_ID_PREFIX[call.dialect.id] + crypto.randomUUID().replace(/-/g, ''), created: Math.floor(call.started / 1000) };
  const iterator = upstream(call)[Symbol.asyncIterator]();
  const counts: Tally = { usage: {} };
  const report = (error: ErrorEvent | undefined) => {
    if (!options.onFinish) return;
    Promise.resolve(options.onFinish(finishOf(call, counts, error))).catch(() => {});
  };
  const take = async (): Promise<IteratorResult<Event>> => {
    const next = await iterator.next();
    if (!next.done) tally(counts, next.value);
    return next;
  };
  // Hold the preamble until the answer starts: a failure before any content is an HTTP error.
  const preamble: Event[] = [];
  for (;;) {
    const next = await take();
    if (next.done) break;
    preamble.push(next.value);
    if (next.value.type === 'error') {
      report(next.value);
      await iterator.return?.(undefined);
      return upstreamError(call.dialect, next.value);
    }
    if (!PREAMBLE.has(next.value.type)) break;
  }

  if (!call.stream) {
    const events = preamble;
    for (;;) {
      const next = await take();
      if (next.done) break;
      events.push(next.value);
    }
    const error = events.find((event): event is ErrorEvent => event.type === 'error');
    report(error);
    if (error) return upstreamError(call.dialect, error);
    const collected = await collectResponse(events);
    return Response.json(call.dialect.encodeResponse({ ...collected, usage: counts.usage }, { ...encoderOptions, usage: counts.usage }));
  }

  await holdForInputCount(call, preamble, take, counts);
  const encoder = call.dialect.createResponseEncoder({ ...encoderOptions, usage: counts.usage, includeUsage: call.includeUsage });
  const bytes = new TextEncoder();
  let queued = preamble;
  let failed: ErrorEvent | undefined;
  let closed = false;
  const framesOf = (event: Event): string[] => {
    if (event.type === 'error') {
      failed = event;
      return encoder.error({ code: event.code, message: event.message });
    }
    // After a failure the caller's provider sends nothing more.
    if (failed) return [];
    return encoder.push(event);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const pending = queued;
            queued = [];
            const text = pending.flatMap(framesOf).join('');
            if (text !== '') {
              controller.enqueue(bytes.encode(text));
              return;
            }
            const next = await take();
            if (next.done) {
              const tail = failed ? '' : encoder.end().join('');
              if (tail !== '') controller.enqueue(bytes.encode(tail));
              closed = true;
              report(failed);
              controller.close();
              return;
            }
            queued.push(next.value);
          }
        } catch (error) {
          closed = true;
          report(failed);
          controller.error(error);
        }
      },
      async cancel() {
        if (!closed) report(failed);
        closed = true;
        await iterator.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': call.dialect.streamContentType, 'cache-control': 'no-cache' } });
}

/**
 * A gateway as a Hono app: mount it beside the Parlance API (`app.route('/', createGateway(...))`)
 * or serve it alone. Provider keys come from the server's environment (or `providers`), never
 * from callers; callers authenticate with gateway keys mapped to principals by `authorize`.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { createGateway, staticKeys } from '@parlance/server/gateway';
 *
 * export const app = new Hono().route('/', createGateway({
 *   routes: { fast: 'openai:gpt-5-mini', smart: ['anthropic:claude-sonnet-4-5', 'openai:gpt-5'] },
 *   authorize: staticKeys({ 'sk-team-a': { id: 'team-a', rateLimit: { requests: 60, windowMs: 60_000 } } }),
 *   onFinish: ({ principal, model, usage }) => console.log(principal.id, model, usage),
 * }));
 * // new OpenAI({ baseURL: 'https://host/v1', apiKey: 'sk-team-a' }).chat.completions.create({ model: 'smart', ... })
 * ```
 */
export function createGateway(options: GatewayOptions): Hono {
  const router = createRouter(options.routes, { providers: { retry: false, ...options.providers }, allowProviderModels: options.allowProviderModels === true });
  const limiter = createWindowLimiter();
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  // The server's edge, answering in the caller's format. The rate limit is not in it: the gateway
  // counts calls that reach a model (after the model and the key's allow-list are checked, below).
  const edge = createEdge<GatewayPrincipal>({
    allowedOrigins: options.allowedOrigins ?? '*',
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_DEPTH,
    authorize: async (c) => {
      const principal = await options.authorize(gatewayKeyOf(c.req.raw), c.req.raw);
      return principal ? { principal } : errorResponse(getDialect(callerDialect(c)), 'authentication', 'Invalid or missing gateway key', 401);
    },
    refuse: (c, error) => errorResponse(getDialect(callerDialect(c)), error.code, error.message, error.status),
  });

  const allowed = async (principal: GatewayPrincipal, name: string): Promise<boolean> => {
    if (principal.models && !principal.models.includes(name)) return false;
    return options.allowModel ? options.allowModel(principal, name) : true;
  };

  async function handle(c: Context, dialect: Dialect, urlModel?: { model: string; stream: boolean }): Promise<Response> {
    const started = Date.now();
    const principal = principalOf<GatewayPrincipal>(c);
    const json = jsonOf(c);
    if (json === undefined) return errorResponse(dialect, 'invalid_request', 'The request body is not valid JSON', 400);
    let decoded: DecodedRequest;
    try {
      decoded = dialect.decodeRequest(json, urlModel ?? {});
    } catch (error) {
      const failure = ParlanceError.from(error, 'invalid_request');
      return errorResponse(dialect, failure.code === 'unknown' ? 'invalid_request' : failure.code, failure.message, 400);
    }
    const name = decoded.request.model;
    const model = router.resolve(name);
    if (!model) return errorResponse(dialect, 'not_found', `The model "${shown(name)}" does not exist or you do not have access to it`, 404);
    if (!(await allowed(principal, name))) return errorResponse(dialect, 'permission', `This key may not use the model "${shown(name)}"`, 403);
    const limited = options.rateLimit
      ? await options.rateLimit(principal, c.req.raw)
      : (() => {
          const decision = limiter(principal);
          return decision.ok ? undefined : { retryAfterSeconds: decision.retryAfterSeconds };
        })();
    if (limited) {
      const retryAfter = String(limited.retryAfterSeconds ?? 1);
      return errorResponse(dialect, 'rate_limited', `Rate limit reached for this key; retry after ${retryAfter}s`, 429, { 'retry-after': retryAfter });
    }
    // Reasoning state comes back sealed when it crossed dialects; what the caller's API had
    // no protocol form for (`extra`) only means something to a provider of the same dialect.
    const request: ModelRequest = { ...decoded.request, messages: openEnvelopes(decoded.request.messages) };
    if (request.extra && dialectsOf(model).some((id) => id !== dialect.id)) delete request.extra;
    const streamOptions = (json as { stream_options?: { include_usage?: unknown } }).stream_options;
    const includeUsage = dialect.id !== 'openai_completions' || streamOptions?.include_usage === true;
    return answer({ dialect, principal, name, model, request, stream: decoded.stream, includeUsage, signal: c.req.raw.signal, started }, options);
  }

  const route = (path: string, id: DialectId) => app.post(path, edge, (c) => handle(c, getDialect(id)));
  route('/v1/chat/completions', 'openai_completions');
  route('/v1/responses', 'openai_responses');
  route('/v1/messages', 'anthropic_messages');
  route('/api/chat', 'ollama_chat');

  // Gemini names the model and the method in the path: models/{model}:generateContent.
  app.post('/v1beta/models/*', edge, (c) => {
    const gemini = getDialect('google_gemini');
    const raw = c.req.path.slice(c.req.path.indexOf('/v1beta/models/') + '/v1beta/models/'.length);
    let tail: string;
    try {
      tail = decodeURIComponent(raw);
    } catch {
      return errorResponse(gemini, 'invalid_request', 'The model name in the path is not valid percent-encoding', 400);
    }
    const match = /^([^/]+):(generateContent|streamGenerateContent)$/.exec(tail);
    if (!match) return errorResponse(gemini, 'not_found', `Method not found: ${shown(tail)}`, 404);
    return handle(c, gemini, { model: match[1]!, stream: match[2] === 'streamGenerateContent' });
  });

  /** The route names a caller may use, for the model lists. */
  const visible = async (principal: GatewayPrincipal): Promise<{ id: string; provider: string }[]> => {
    const out = [];
    for (const id of router.names()) if (await allowed(principal, id)) out.push({ id, provider: router.resolve(id)?.provider ?? 'parlance' });
    return out;
  };
  const listing = (shape: (models: { id: string; provider: string }[]) => unknown) => async (c: Context) => c.json(shape(await visible(principalOf<GatewayPrincipal>(c))));
  const EPOCH = '1970-01-01T00:00:00Z';

  // OpenAI https://platform.openai.com/docs/api-reference/models/list, or Anthropic's list when
  // the caller is the Anthropic SDK (it sends `anthropic-version`): https://docs.anthropic.com/en/api/models-list
  app.get('/v1/models', edge, (c) =>
    c.req.header('anthropic-version') !== undefined
      ? listing((models) => ({
          data: models.map((m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: EPOCH })),
          has_more: false,
          first_id: models[0]?.id ?? null,
          last_id: models.at(-1)?.id ?? null,
        }))(c)
      : listing((models) => ({ object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created: 0, owned_by: m.provider })) }))(c),
  );
  // One model: https://platform.openai.com/docs/api-reference/models/retrieve, https://docs.anthropic.com/en/api/models,
  // https://ai.google.dev/api/models#method:-models.get
  const one = (id: DialectId, name: (c: Context) => string, shape: (model: { id: string; provider: string }) => unknown) => async (c: Context) => {
    const dialect = getDialect(id);
    const principal = principalOf<GatewayPrincipal>(c);
    let wanted: string;
    try {
      wanted = decodeURIComponent(name(c));
    } catch {
      return errorResponse(dialect, 'invalid_request', 'The model name in the path is not valid percent-encoding', 400);
    }
    const found = (await visible(principal)).find((model) => model.id === wanted);
    return found ? c.json(shape(found)) : errorResponse(dialect, 'not_found', `The model "${shown(wanted)}" does not exist or you do not have access to it`, 404);
  };
  app.get('/v1/models/:id{.+}', edge, (c) =>
    c.req.header('anthropic-version') !== undefined
      ? one('anthropic_messages', (c) => c.req.param('id') ?? '', (m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: EPOCH }))(c)
      : one('openai_completions', (c) => c.req.param('id') ?? '', (m) => ({ id: m.id, object: 'model', created: 0, owned_by: m.provider }))(c),
  );
  app.get(
    '/v1beta/models/:name{.+}',
    edge,
    one(
      'google_gemini',
      (c) => c.req.param('name') ?? '',
      (m) => ({ name: `models/${m.id}`, displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] }),
    ),
  );

  // https://ai.google.dev/api/models#method:-models.list
  app.get(
    '/v1beta/models',
    edge,
    listing((models) => ({
      models: models.map((m) => ({ name: `models/${m.id}`, displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] })),
    })),
  );
  // https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models
  app.get(
    '/api/tags',
    edge,
    listing((models) => ({
      models: models.map((m) => ({ name: m.id, model: m.id, modified_at: EPOCH, size: 0, digest: '', details: { format: '', family: m.provider, parameter_size: '', quantization_level: '' } })),
    })),
  );

  return app;
}
