/**
 * Every route the server's apps serve, as Hono lists them (not a hand list), gets the same bad
 * input: no credentials, a foreign Origin, a body that is not JSON by content type, too large
 * (declared or streamed), nested too deep, not JSON; then a bounded fuzz of random and
 * structure-aware bodies. Each must be a typed 4xx in the route family's error format (the
 * gateway's in its caller's provider format), never a 5xx. A route added without the edge fails.
 */
import { getDialect, type DialectId } from '@parlance/dialects';
import { type ErrorCode, isErrorCode } from '@parlance/protocol';
import fc from 'fast-check';
import { Hono } from 'hono';
import { inspectRoutes } from 'hono/dev';
import { describe, expect, it } from 'vitest';
import { textRunner, userThread } from '../../test/helpers.ts';
import { createAgUiRoutes } from '../frontends/ag-ui-routes.ts';
import { createAiSdkRoutes } from '../frontends/ai-sdk-routes.ts';
import { createGateway } from '../gateway/gateway.ts';
import { staticKeys } from '../gateway/keys.ts';
import { createParlanceApp } from '../handler.ts';
import { createMemoryBlobStore } from '../files/memory-blob-store.ts';
import { createMemoryRunStore } from '../memory-run-store.ts';
import type { ParlanceServerOptions } from '../server-options.ts';

const MAX_BODY = 256 * 1024;
const AUTH = { 'x-user': 'ann', authorization: 'Bearer k1' };
const JSON_TYPE = { 'content-type': 'application/json' };

function servingApp(): Hono {
  const options: ParlanceServerOptions = {
    models: [{ id: 'mock:echo', provider: 'mock', name: 'Echo' }],
    run: textRunner(['Hi']).runner,
    store: createMemoryRunStore(),
    env: {},
    maxBodyBytes: MAX_BODY,
    authorize: (request) => (request.headers.get('x-user') ? { id: request.headers.get('x-user')! } : undefined),
    onError: () => {},
    secret: 'every-route-secret-that-is-long-enough-0123',
    // `POST /files` takes bytes, not JSON: its edge refuses JSON bodies by type (BYTES_ROUTE below).
    files: { store: createMemoryBlobStore(), maxFileBytes: MAX_BODY },
  };
  return new Hono()
    .route('/', createParlanceApp(options))
    .route('/ai', createAiSdkRoutes(options))
    .route('/agui', createAgUiRoutes(options))
    .route(
      '/gw',
      createGateway({
        // One model, whose upstream refuses every call (no network): a body that passes reaches the provider's encoding.
        routes: { m: ['openai:gpt-test', 'anthropic:claude-test'] },
        providers: { apiKey: 'sk-upstream-test', fetch: async () => Response.json({ error: { message: 'Invalid key', type: 'invalid_request_error' } }, { status: 401 }) },
        authorize: staticKeys({ k1: { id: 'a' } }),
        maxBodyBytes: MAX_BODY,
        allowedOrigins: ['https://app.example'],
      }),
    );
}

interface Served {
  method: string;
  path: string;
  /** A concrete URL path for the route (parameters filled in). */
  url: string;
}

/** The routes an app serves: its non-middleware route entries, one per method and path. */
function servedRoutes(app: Hono): Served[] {
  const seen = new Map<string, Served>();
  for (const route of inspectRoutes(app)) {
    if (route.isMiddleware || route.method === 'ALL') continue;
    const url = route.path.replace(/:[A-Za-z]+(\{[^}]*\})?/g, 'x').replace(/\*/g, 'x');
    seen.set(`${route.method} ${route.path}`, { method: route.method, path: route.path, url });
  }
  return [...seen.values()];
}

/** The caller format of a gateway route, as its SDK expects errors (undefined: the Parlance format). */
function gatewayDialect(path: string, headers: Headers, method = 'GET'): DialectId | undefined {
  if (!path.startsWith('/gw/')) return undefined;
  if (path.startsWith('/gw/api/')) return 'ollama_chat';
  if (path.endsWith('/chat/completions') || path.endsWith('/embeddings')) return 'openai_completions';
  if (path.includes('/v1/responses')) return 'openai_responses';
  if (path.includes('/v1/messages')) return 'anthropic_messages';
  if (path.startsWith('/gw/api/')) return 'ollama_chat';
  if (path.startsWith('/gw/v1beta/') || (method === 'POST' && path.startsWith('/gw/v1/models/'))) return 'google_gemini';
  return headers.has('anthropic-version') ? 'anthropic_messages' : 'openai_completions';
}

const MESSAGE = '<message>';

/** Whether `actual` has the shape of `expected`, where `MESSAGE` stands for any non-empty string. */
function sameShape(actual: unknown, expected: unknown): boolean {
  if (expected === MESSAGE) return typeof actual === 'string' && actual.length > 0;
  if (typeof expected !== 'object' || expected === null) return actual === expected;
  if (typeof actual !== 'object' || actual === null) return false;
  return Object.entries(expected).every(([key, value]) => sameShape((actual as Record<string, unknown>)[key], value));
}

/** Whether a response is the typed refusal `status`/`code` in the route's format. */
async function isRefusal(route: Served, sent: Headers, response: Response, status: number, code: ErrorCode): Promise<boolean> {
  if (response.status !== status) return false;
  const body = (await response.json().catch(() => undefined)) as unknown;
  const dialect = gatewayDialect(route.path, sent, route.method);
  if (!dialect) return sameShape(body, { error: { code, message: MESSAGE } });
  return sameShape(body, JSON.parse(getDialect(dialect).encodeError({ code, message: MESSAGE, status }).body));
}

/**
 * Routes whose body is a file's bytes (`application/octet-stream`, never parsed): a JSON body is
 * refused there by its type (415) before its size or depth matter, and the size limit is checked
 * on bytes sent with the route's own type.
 */
const BYTES_ROUTES = new Set(['POST /files']);
const BYTES_TYPE = { 'content-type': 'application/octet-stream', 'x-parlance-file-type': 'image/png' };

/** The bad input as a bytes route must answer it. */
function forBytesRoute(input: BadInput): BadInput {
  if (!input.body || input.status === 415) return input;
  if (input.status === 413) return { ...input, headers: { ...input.headers, ...BYTES_TYPE } };
  // Depth and parse checks are about JSON: a JSON body is refused by type first.
  return { ...input, status: 415 };
}

interface BadInput {
  name: string;
  /** Only requests that can carry a body. */
  body?: true;
  headers: Record<string, string>;
  send?: (route: Served) => BodyInit;
  status: number;
  code: ErrorCode;
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const DEEP = '<deep>';
/**
 * The route's body as text with a JSON schema nested `depth` objects deep (`{"a":{"a":...}}`) where
 * it nests; written as text, as JSON.stringify itself overflows the stack on such a value.
 */
const deepBody = (path: string, depth: number) => JSON.stringify(bodyFor(path, DEEP)).replace(JSON.stringify(DEEP), '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1));

/**
 * A body the route's decoder accepts in shape, carrying `deep` where that format nests (a tool's
 * schema, options, metadata): the structure-aware bad input reaches past the first type check.
 */
function bodyFor(path: string, deep: unknown): Record<string, unknown> {
  const hi = [{ role: 'user', content: 'hi' }];
  if (path.endsWith('/chat/completions') || path === '/gw/api/chat') return { model: 'm', messages: hi, tools: [{ type: 'function', function: { name: 'f', parameters: deep } }] };
  if (path.endsWith('/responses')) return { model: 'm', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: deep }] };
  if (path.endsWith('/messages')) return { model: 'm', max_tokens: 10, messages: hi, tools: [{ name: 'f', input_schema: deep }] };
  if (path.startsWith('/gw/v1beta/')) return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'f', parameters: deep }] }] };
  if (path === '/agui') return { threadId: 't', runId: 'r', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [{ name: 'f', description: 'f', parameters: deep }], context: [], state: {}, forwardedProps: {} };
  if (path === '/ai') return { id: 'c1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }], metadata: deep }] };
  return { thread: userThread, clientRequestId: 'deep', options: { deep } };
}

const BAD_INPUT: BadInput[] = [
  { name: 'no credentials', headers: JSON_TYPE, status: 401, code: 'authentication' },
  { name: 'a foreign Origin', headers: { ...AUTH, ...JSON_TYPE, origin: 'https://evil.example' }, status: 403, code: 'permission' },
  { name: 'a text/plain body', body: true, headers: { ...AUTH, 'content-type': 'text/plain' }, send: () => '{}', status: 415, code: 'invalid_request' },
  { name: 'a form body', body: true, headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' }, send: () => 'a=1', status: 415, code: 'invalid_request' },
  { name: 'a body over the limit (declared)', body: true, headers: { ...AUTH, ...JSON_TYPE }, send: () => JSON.stringify({ pad: 'x'.repeat(MAX_BODY) }), status: 413, code: 'invalid_request' },
  {
    // As a server reads one off the wire: the length in the header, checked before the body is read.
    name: 'a body over the limit (content-length)',
    body: true,
    headers: { ...AUTH, ...JSON_TYPE, 'content-length': String(JSON.stringify({ pad: 'x'.repeat(MAX_BODY) }).length) },
    send: () => JSON.stringify({ pad: 'x'.repeat(MAX_BODY) }),
    status: 413,
    code: 'invalid_request',
  },
  {
    name: 'a body over the limit (streamed, no length)',
    body: true,
    headers: { ...AUTH, ...JSON_TYPE },
    send: () => new Blob([JSON.stringify({ pad: 'x'.repeat(MAX_BODY) })]).stream(),
    status: 413,
    code: 'invalid_request',
  },
  { name: 'JSON nested 10,000 deep', body: true, headers: { ...AUTH, ...JSON_TYPE }, send: () => nested(10_000), status: 400, code: 'invalid_request' },
  { name: 'a tool schema (or options) nested 65 deep', body: true, headers: { ...AUTH, ...JSON_TYPE }, send: (r) => deepBody(r.path, 65), status: 400, code: 'invalid_request' },
  { name: 'a tool schema (or options) nested 10,000 deep', body: true, headers: { ...AUTH, ...JSON_TYPE }, send: (r) => deepBody(r.path, 10_000), status: 400, code: 'invalid_request' },
  { name: 'invalid JSON', body: true, headers: { ...AUTH, ...JSON_TYPE }, send: () => '{"model":', status: 400, code: 'invalid_request' },
];

function requestFor(route: Served, input: { headers: Record<string, string>; body?: BodyInit | undefined }): Request {
  const init: RequestInit & { duplex?: 'half' } = { method: route.method, headers: input.headers };
  if (input.body !== undefined && route.method !== 'GET') {
    init.body = input.body;
    if (input.body instanceof ReadableStream) init.duplex = 'half';
  }
  return new Request(`http://localhost${route.url}`, init);
}

/** The bad inputs a route answered wrongly (empty: the route has the edge). */
async function edgeFailures(app: Hono, route: Served): Promise<string[]> {
  const failures: string[] = [];
  for (const given of BAD_INPUT) {
    if (given.body && route.method === 'GET') continue;
    const input = BYTES_ROUTES.has(`${route.method} ${route.path}`) ? forBytesRoute(given) : given;
    const request = requestFor(route, { headers: input.headers, body: input.send?.(route) });
    const response = await app.fetch(request);
    if (!(await isRefusal(route, request.headers, response, input.status, input.code))) failures.push(`${input.name}: ${response.status}`);
  }
  return failures;
}

const app = servingApp();
const routes = servedRoutes(app);

describe('the edge, on every route', () => {
  it('finds every route family in the app', () => {
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of ['POST /chat', 'GET /runs/:runId/events', 'POST /runs/:runId/cancel', 'GET /models', 'POST /files', 'POST /ai', 'GET /ai/:chatId/stream', 'POST /agui']) {
      expect(paths).toContain(expected);
    }
    for (const path of ['/gw/v1/chat/completions', '/gw/v1/responses', '/gw/v1/messages', '/gw/v1beta/models/*', '/gw/api/chat']) expect(paths).toContain(`POST ${path}`);
    expect(routes.length).toBeGreaterThanOrEqual(17);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s refuses the bad-input table with typed 4xx', async (_name, route) => {
    expect(await edgeFailures(app, route)).toEqual([]);
  });

  it('fails a route that was added without the edge', async () => {
    const bare = servingApp();
    bare.post('/later', (c) => c.json({ ok: true }));
    bare.get('/later', (c) => c.json({ ok: true }));
    const later = servedRoutes(bare).filter((r) => r.path === '/later');
    expect(later).toHaveLength(2);
    for (const route of later) expect((await edgeFailures(bare, route)).length).toBeGreaterThan(0);
  });
});

/** JSON values in the fields the route families read, to reach past the edge into each decoder. */
const FIELDS = [
  'thread', 'messages', 'clientRequestId', 'model', 'options', 'resume', 'id', 'trigger', 'messageId', 'threadId', 'runId', 'state',
  'tools', 'context', 'forwardedProps', 'contents', 'input', 'max_tokens', 'stream', 'system', 'generationConfig', 'stream_options',
];
const structuredFor = (route: Served) =>
  fc.oneof(
    // The route's own shape, with a value nested past the limit (up to where walking it overflows the stack).
    fc.integer({ min: 65, max: 12_000 }).map((depth) => deepBody(route.path, depth)),
    // The route's own shape with one field swapped for any JSON value.
    fc
      .record({ field: fc.constantFrom(...Object.keys(bodyFor(route.path, {}))), value: fc.jsonValue({ maxDepth: 4 }) })
      .map(({ field, value }) => JSON.stringify({ ...bodyFor(route.path, {}), [field]: value })),
  );
const structured = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }).map((value) => JSON.stringify(value)),
  // A valid thread with one field swapped for something else.
  fc
    .record({ field: fc.constantFrom('thread', 'clientRequestId', 'model', 'options', 'resume', 'messages'), value: fc.jsonValue({ maxDepth: 3 }) })
    .map(({ field, value }) => JSON.stringify({ thread: userThread, clientRequestId: 'fuzz', [field]: value })),
  fc.integer({ min: 65, max: 2000 }).map((depth) => `{"messages":${nested(depth)}}`),
);
const random = fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), fc.uint8Array({ maxLength: 200 }).map((bytes) => new TextDecoder().decode(bytes)));

describe('a bounded fuzz of every route', () => {
  const posts = routes.filter((r) => r.method === 'POST');

  it('answers random and structure-aware bodies with a typed answer, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...posts).chain((route) => fc.tuple(fc.constant(route), fc.oneof(structuredFor(route), structured, random))),
        async ([route, body]) => {
        const request = requestFor(route, { headers: { ...AUTH, ...JSON_TYPE }, body });
        const response = await app.fetch(request);
        expect(response.status).toBeLessThan(500);
        if (response.status < 400) {
          await response.body?.cancel();
          return;
        }
        const answer = (await response.json()) as { error?: { code?: unknown } | string };
        if (!gatewayDialect(route.path, request.headers)) expect(isErrorCode((answer.error as { code?: unknown }).code)).toBe(true);
        else expect(answer.error ?? answer).toBeDefined();
        },
      ),
      { numRuns: 300, seed: 25 },
    );
  });
});
