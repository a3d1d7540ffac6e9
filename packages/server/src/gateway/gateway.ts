/**
 * The gateway: any client that speaks one provider's API (its official SDK, or any tool built
 * on one) reaches any configured provider through the dialects. A request arrives in the
 * caller's wire format, is decoded to the protocol (`decodeRequest`), routed to a provider
 * model by the routing table, and the provider's events are encoded back in the caller's
 * format (`createResponseEncoder` / `encodeResponse`), errors included, with the status the
 * caller's own provider would send. Where a case is not specified, the gateway behaves as the
 * caller's provider behaves toward its own SDK.
 *
 * Routes (as the official SDKs call them; mount under any prefix; the README lists them all):
 *   POST /v1/chat/completions                      OpenAI Chat Completions
 *   POST /v1/responses                             OpenAI Responses
 *   POST /v1/messages                              Anthropic Messages
 *   POST /v1beta/models/{model}:generateContent    Gemini (and :streamGenerateContent?alt=sse; also under /v1)
 *   POST /api/chat, /api/generate                  Ollama
 *   GET  /v1/models                                the caller's models, in its SDK's shape
 *   embeddings (./embeddings.ts), token counts (./token-counts.ts), 404s (./not-found.ts)
 */
import { type DecodedRequest, type Dialect, type DialectId, getDialect, type RequestDecodeOptions } from '@parlance/dialects';
import { type ModelRequest, ParlanceError } from '@parlance/protocol';
import { type Context, Hono } from 'hono';
import { principalOf } from '../edge/caller.ts';
import { createEdge } from '../edge/edge.ts';
import { jsonOf } from '../edge/json-body.ts';
import { storeUnavailable } from '../run-store.ts';
import { answer, type Call, errorResponse, newResponseId, shown } from './answer.ts';
import type { GatewayEdge } from './edge.ts';
import { mountEmbeddings } from './embeddings.ts';
import { openEnvelopes } from './envelope.ts';
import { createWindowLimiter, type GatewayPrincipal, gatewayKeyOf } from './keys.ts';
import { callerDialect, geminiCaller, mountNotFound } from './not-found.ts';
import { mountOllamaGenerate } from './ollama-generate.ts';
import { DEFAULT_MAX_BODY, DEFAULT_MAX_DEPTH, type GatewayFinish, type GatewayOptions, type GatewayStoreOperation } from './options.ts';
import { createResponseCache } from './response-cache.ts';
import { createResponsesState, itemNamer } from './responses-state.ts';
import { createRouter, dialectsOf } from './routing.ts';
import { createSpendTracker } from './spend.ts';
import { mountTokenCounts } from './token-counts.ts';

export type { GatewayFinish, GatewayOptions } from './options.ts';

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
  const spend = createSpendTracker(options.spendStore);
  const cache = options.cache ? createResponseCache(options.cache === true ? {} : options.cache) : undefined;
  const storeFailed = (operation: GatewayStoreOperation) => (error: unknown) => {
    (options.onStoreError ?? ((e) => console.error(`Gateway store failed (${operation}):`, e)))(storeUnavailable(error), { operation });
  };
  // Each finished call's cost counts toward its key's budget before its answer ends. A store that
  // is down loses that cost (the call already ran) and says so to onStoreError.
  const account = (finish: GatewayFinish) => spend.add(finish.principal, finish.usage.cost).catch(storeFailed('spend-add'));
  const responsesState = createResponsesState(options.store);
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  // The server's edge, answering in the caller's format. The rate limit is not in it: the gateway
  // counts calls that reach a model (after the model and the key's allow-list are checked, below).
  const guard = createEdge<GatewayPrincipal>({
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

  /** The principal and JSON body the edge let in (`body` when the route rewrote it), or the caller's 400. */
  async function admit(c: Context, dialect: Dialect, body?: unknown): Promise<{ principal: GatewayPrincipal; json: unknown } | Response> {
    const principal = principalOf<GatewayPrincipal>(c);
    const json = body ?? jsonOf(c);
    if (json === undefined) return errorResponse(dialect, 'invalid_request', 'The request body is not valid JSON', 400);
    return { principal, json };
  }

  /** The key's allow-list and rate limit for a model name: undefined to go on, else the caller's 403/429. */
  async function permit(c: Context, dialect: Dialect, principal: GatewayPrincipal, name: string): Promise<Response | undefined> {
    if (!(await allowed(principal, name))) return errorResponse(dialect, 'permission', `This key may not use the model "${shown(name)}"`, 403);
    let overBudget: Awaited<ReturnType<typeof spend.refusal>>;
    try {
      overBudget = await spend.refusal(principal);
    } catch (error) {
      // A budget that cannot be read cannot be kept: refuse (fail closed), as the provider would when overloaded.
      storeFailed('spend-check')(error);
      return errorResponse(dialect, 'store_unavailable', 'The spend budget store is not available; try again shortly', 503, { 'retry-after': '1' });
    }
    if (overBudget) {
      const retryAfter = String(overBudget.retryAfterSeconds);
      return errorResponse(dialect, 'rate_limited', `This key has used its budget of $${overBudget.budget.usd} for this period; retry after ${retryAfter}s`, 429, { 'retry-after': retryAfter });
    }
    const limited = options.rateLimit
      ? await options.rateLimit(principal, c.req.raw)
      : (() => {
          const decision = limiter(principal);
          return decision.ok ? undefined : { retryAfterSeconds: decision.retryAfterSeconds };
        })();
    if (!limited) return undefined;
    const retryAfter = String(limited.retryAfterSeconds ?? 1);
    return errorResponse(dialect, 'rate_limited', `Rate limit reached for this key; retry after ${retryAfter}s`, 429, { 'retry-after': retryAfter });
  }

  /** A decoded request: the caller's 400 for a body its API would refuse. */
  function decode(dialect: Dialect, json: unknown, urlModel?: { model: string; stream: boolean }, resolved: RequestDecodeOptions = {}): DecodedRequest | Response {
    try {
      return dialect.decodeRequest(json, { ...urlModel, ...resolved });
    } catch (error) {
      const failure = ParlanceError.from(error, 'invalid_request');
      return errorResponse(dialect, failure.code === 'unknown' ? 'invalid_request' : failure.code, failure.message, 400);
    }
  }

  async function handle(c: Context, dialect: Dialect, urlModel?: { model: string; stream: boolean }, body?: unknown): Promise<Response> {
    const started = Date.now();
    const admitted = await admit(c, dialect, body);
    if (admitted instanceof Response) return admitted;
    const { principal, json } = admitted;
    // Responses: what previous_response_id and item_reference name comes from the store.
    const resolved = dialect.id === 'openai_responses' ? await responsesState.resolve(json, principal) : {};
    if (resolved instanceof Response) return resolved;
    const decoded = decode(dialect, json, urlModel, resolved);
    if (decoded instanceof Response) return decoded;
    const name = decoded.request.model;
    const model = router.resolve(name);
    if (!model) return errorResponse(dialect, 'not_found', `The model "${shown(name)}" does not exist or you do not have access to it`, 404);
    const refused = await permit(c, dialect, principal, name);
    if (refused) return refused;
    // Reasoning state comes back sealed when it crossed dialects; what the caller's API had
    // no protocol form for (`extra`) only means something to a provider of the same dialect.
    const request: ModelRequest = { ...decoded.request, messages: openEnvelopes(decoded.request.messages) };
    if (request.extra && dialectsOf(model).some((id) => id !== dialect.id)) delete request.extra;
    const streamOptions = (json as { stream_options?: { include_usage?: unknown } }).stream_options;
    const includeUsage = dialect.id !== 'openai_completions' || streamOptions?.include_usage === true;
    const call: Call = { dialect, principal, name, model, request, stream: decoded.stream, includeUsage, signal: c.req.raw.signal, started, account };
    if (dialect.id === 'openai_responses' && responsesState.keeps(json)) {
      const responseId = newResponseId(dialect.id);
      call.responseId = responseId;
      call.keep = { name: itemNamer(responseId), done: (events) => void responsesState.keep(principal, responseId, request.messages, events) };
    }
    // The cache holds whole (non-streamed) answers only, and none kept for Responses state.
    if (!cache || call.stream || call.keep) return answer(call, options);
    return cached(cache, call);
  }

  /**
   * A non-streamed answer through the cache. The cache fails open: a store that cannot be read or
   * written is a miss (the call goes upstream), reported to onStoreError.
   */
  async function cached(cache: ReturnType<typeof createResponseCache>, call: Call): Promise<Response> {
    const key = await cache.keyOf(call.principal, call.dialect.id, call.name, call.request);
    const hit = await cache.get(key).catch(storeFailed('cache-get'));
    if (hit) return hit;
    const response = await answer(call, options);
    if (response.status !== 200) return response;
    const body = await response.text();
    await cache.put(key, body, response.headers.get('content-type') ?? 'application/json').catch(storeFailed('cache-put'));
    return new Response(body, { status: 200, headers: response.headers });
  }

  const route = (path: string, id: DialectId) => app.post(path, guard, (c) => handle(c, getDialect(id)));
  route('/v1/chat/completions', 'openai_completions');
  route('/v1/responses', 'openai_responses');
  route('/v1/messages', 'anthropic_messages');
  route('/api/chat', 'ollama_chat');

  const edge: GatewayEdge = { app, options, guard, admit, permit, decode, handle };
  const embedGemini = mountEmbeddings(edge);
  const countGemini = mountTokenCounts(edge, router);
  mountOllamaGenerate(edge);

  // Gemini names the model and the method in the path: models/{model}:generateContent, under
  // /v1beta (the Gemini API's default) or /v1 (@google/genai 3.x's default).
  const geminiMethod = (prefix: string) => (c: Context) => {
    const gemini = getDialect('google_gemini');
    const raw = c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length);
    let tail: string;
    try {
      tail = decodeURIComponent(raw);
    } catch {
      return errorResponse(gemini, 'invalid_request', 'The model name in the path is not valid percent-encoding', 400);
    }
    const match = /^([^/]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/.exec(tail);
    if (!match) return errorResponse(gemini, 'not_found', `Method not found: ${shown(tail)}`, 404);
    const [, model, method] = match as unknown as [string, string, string];
    if (method === 'countTokens') return countGemini(c, model);
    if (method === 'embedContent' || method === 'batchEmbedContents') return embedGemini(c, model, method);
    return handle(c, gemini, { model, stream: method === 'streamGenerateContent' });
  };
  app.post('/v1beta/models/*', guard, geminiMethod('/v1beta/models/'));
  app.post('/v1/models/*', guard, geminiMethod('/v1/models/'));

  /** The route names a caller may use, for the model lists. */
  const visible = async (principal: GatewayPrincipal): Promise<{ id: string; provider: string }[]> => {
    const out = [];
    for (const id of router.names()) if (await allowed(principal, id)) out.push({ id, provider: router.resolve(id)?.provider ?? 'parlance' });
    return out;
  };
  const listing = (shape: (models: { id: string; provider: string }[]) => unknown) => async (c: Context) => c.json(shape(await visible(principalOf<GatewayPrincipal>(c))));
  const EPOCH = '1970-01-01T00:00:00Z';
  const geminiList = listing((models) => ({
    models: models.map((m) => ({ name: `models/${m.id}`, displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] })),
  }));

  // OpenAI https://platform.openai.com/docs/api-reference/models/list, or Anthropic's list when
  // the caller is the Anthropic SDK (it sends `anthropic-version`): https://docs.anthropic.com/en/api/models-list
  app.get('/v1/models', guard, (c) =>
    geminiCaller(c)
      ? geminiList(c)
      : c.req.header('anthropic-version') !== undefined
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
  const geminiOne = one(
    'google_gemini',
    (c) => c.req.param('name') ?? c.req.param('id') ?? '',
    (m) => ({ name: `models/${m.id}`, displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] }),
  );
  app.get('/v1/models/:id{.+}', guard, (c) =>
    geminiCaller(c)
      ? geminiOne(c)
      : c.req.header('anthropic-version') !== undefined
      ? one('anthropic_messages', (c) => c.req.param('id') ?? '', (m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: EPOCH }))(c)
      : one('openai_completions', (c) => c.req.param('id') ?? '', (m) => ({ id: m.id, object: 'model', created: 0, owned_by: m.provider }))(c),
  );
  app.get('/v1beta/models/:name{.+}', guard, geminiOne);

  // https://ai.google.dev/api/models#method:-models.list
  app.get('/v1beta/models', guard, (c) => geminiList(c));

  // https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models
  app.get(
    '/api/tags',
    guard,
    listing((models) => ({
      models: models.map((m) => ({ name: m.id, model: m.id, modified_at: EPOCH, size: 0, digest: '', details: { format: '', family: m.provider, parameter_size: '', quantization_level: '' } })),
    })),
  );

  mountNotFound(app, guard);
  return app;
}

