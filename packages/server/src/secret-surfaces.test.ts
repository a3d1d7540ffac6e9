/**
 * The secret-forms table against every output surface (issue #24): an upstream 401 that echoes
 * the server's provider key (raw, `Bearer`, `Basic` user:key, base64 at each alignment, base64url,
 * URL-encoded, JSON-escaped, hex) and a tool whose error quotes it reach no caller, on `POST /chat`
 * and its resume, the gateway in all five caller formats streamed and not, the AI SDK route and
 * the AG-UI route. The tool's `execute` is a spy: where a run is refused nothing calls it.
 */
import { defineProvider, secretForms, tool } from '@parlance/engine';
import { describe, expect, it, vi } from 'vitest';
import { userThread } from '../test/helpers.ts';
import { engineRunner } from './engine-runner.ts';
import { createAgUiRoutes } from './frontends/ag-ui.ts';
import { createAiSdkRoutes } from './frontends/index.ts';
import { createGateway } from './gateway/gateway.ts';
import { staticKeys } from './gateway/keys.ts';
import { createParlanceApp } from './handler.ts';

// A key with '/' and '+' so its URL-encoded, JSON-escaped (`\/`) and base64url forms all differ from it.
const KEY = 'sk-live/Abc+123def456GHI789jkl012MNO345';
const b64 = (text: string) => btoa(text);
const hex = (text: string) => [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** How an upstream (or a tool) echoes the key: each row one form of one header or dump. */
const ECHOES: [string, string][] = [
  ['raw', KEY],
  ['Bearer', `Bearer ${KEY}`],
  ['base64("Bearer <key>") (shift 1)', b64(`Bearer ${KEY}`)],
  ['base64 of the bare key (shift 0)', b64(KEY)],
  ['Basic base64(user:key) (shift 2)', `Basic ${b64(`a:${KEY}`)}`],
  ['Basic base64(user:key) (shift 1)', `Basic ${b64(`usr:${KEY}`)}`],
  ['Basic base64(user:key) (shift 0)', `Basic ${b64(`user1:${KEY}`)}`],
  ['base64url("Bearer <key>")', b64(`Bearer ${KEY}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')],
  ['URL-encoded', `https://api.example/v1?key=${encodeURIComponent(KEY)}`],
  ['URL-encoded base64', encodeURIComponent(b64(`Bearer ${KEY}`))],
  ['JSON-escaped with \\/', JSON.stringify({ auth: KEY }).replace(/\//g, '\\/')],
  ['hex', hex(KEY)],
  ['HEX', hex(KEY).toUpperCase()],
];
/** What must never appear on a wire: every form, and each echo's key-bearing text. */
const FORBIDDEN = [...secretForms([KEY]), KEY, b64(`Bearer ${KEY}`).slice(4, -4), hex(KEY).slice(0, 40)];

function expectClean(wire: string, label: string): void {
  for (const form of FORBIDDEN) expect(wire.includes(form), `${label}: ${form}`).toBe(false);
}

/** A provider that answers every call with a 401 echoing the key in `echo`. */
function leakyProvider(echo: string) {
  const fetch = vi.fn(async () => Response.json({ error: { message: `Invalid Authorization header: ${echo}`, type: 'invalid_request_error' } }, { status: 401 }));
  const provider = defineProvider({ id: 'leaky', baseURL: 'http://leaky.invalid/v1', auth: { env: 'LEAKY_API_KEY' }, dialect: 'openai_completions' }, { fetch, retry: false, apiKey: KEY });
  return { provider, fetch };
}

const env = { LEAKY_API_KEY: KEY, PARLANCE_SECRET: 'surfaces-test-secret-0123456789abcdef0123' };

function servers(echo: string) {
  const { provider } = leakyProvider(echo);
  const execute = vi.fn(() => {
    throw new Error(`tool failed with ${echo}`);
  });
  const options = {
    models: [{ id: 'leaky:m', provider: 'leaky' }],
    env,
    run: engineRunner({ engine: { tools: [tool({ name: 'noop', input: { type: 'object', properties: {} }, execute })], resolveModel: () => provider.model('m') } }),
    onError: () => {},
  };
  return { app: createParlanceApp(options), ai: createAiSdkRoutes(options), agui: createAgUiRoutes(options), execute, provider };
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer gw-key' }, body: JSON.stringify(body) });

describe('no form of a secret leaves through any output', () => {
  it.each(ECHOES)('%s: POST /chat and its resume', async (label, echo) => {
    const { app, execute } = servers(echo);
    const res = await app.request('/chat', json({ thread: userThread, clientRequestId: `c-${label}` }));
    const runId = res.headers.get('x-parlance-run-id')!;
    const wire = await res.text();
    expect(wire).toContain('"type":"error"');
    expect(wire).toContain('authentication');
    expectClean(wire, `${label} /chat`);
    expectClean(await (await app.request(`/runs/${runId}/events`)).text(), `${label} resume`);
    expect(execute).not.toHaveBeenCalled();
  });

  it.each(ECHOES)('%s: the gateway in all five caller formats, streamed and not (errors included)', async (label, echo) => {
    const { provider, fetch } = leakyProvider(echo);
    const gateway = createGateway({ routes: { m: provider.model('m') }, authorize: staticKeys({ 'gw-key': { id: 'caller' } }) });
    const calls: [string, (stream: boolean) => unknown][] = [
      ['/v1/chat/completions', (stream) => ({ model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] })],
      ['/v1/responses', (stream) => ({ model: 'm', stream, input: 'hi' })],
      ['/v1/messages', (stream) => ({ model: 'm', stream, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })],
      ['/api/chat', (stream) => ({ model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] })],
    ];
    for (const stream of [false, true]) {
      for (const [path, body] of calls) {
        const res = await gateway.request(path, json(body(stream)));
        expect(res.status, path).toBeGreaterThanOrEqual(400);
        expectClean(await res.text(), `${label} ${path} stream=${stream}`);
      }
      const gemini = await gateway.request(`/v1beta/models/m:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gw-key' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
      expectClean(await gemini.text(), `${label} gemini stream=${stream}`);
    }
    expect(fetch).toHaveBeenCalled();
  });

  it.each(ECHOES)('%s: the AI SDK error chunk and the AG-UI RUN_ERROR', async (label, echo) => {
    const { ai, agui, execute } = servers(echo);
    const chunks = await (await ai.request('/', json({ id: `chat-${label}`, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], trigger: 'submit-message' }))).text();
    expect(chunks).toContain('"type":"error"');
    expectClean(chunks, `${label} AI SDK`);
    const events = await (await agui.request('/', json({ threadId: `t-${label}`, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [] }))).text();
    expect(events).toContain('RUN_ERROR');
    expectClean(events, `${label} AG-UI`);
    expect(execute).not.toHaveBeenCalled();
  });

  it.each(ECHOES)('%s: a tool error quoting the key reaches the browser scrubbed', async (label, echo) => {
    const calls = vi.fn();
    let n = 0;
    const provider = defineProvider(
      { id: 'leaky', baseURL: 'http://leaky.invalid/v1', auth: { env: 'LEAKY_API_KEY' }, dialect: 'openai_completions' },
      {
        retry: false,
        apiKey: KEY,
        fetch: async () => {
          calls();
          const chunk = n++ === 0 ? { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'noop', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] } : { choices: [{ index: 0, delta: { content: 'done' }, finish_reason: 'stop' }] };
          return new Response(`data: ${JSON.stringify({ id: 'x', ...chunk })}\n\ndata: [DONE]\n\n`, { headers: { 'content-type': 'text/event-stream' } });
        },
      },
    );
    const execute = vi.fn(() => {
      throw new Error(`upstream said ${echo}`);
    });
    const app = createParlanceApp({ models: [{ id: 'leaky:m', provider: 'leaky' }], env, run: engineRunner({ engine: { tools: [tool({ name: 'noop', input: { type: 'object', properties: {} }, execute })], resolveModel: () => provider.model('m') } }), onError: () => {} });
    const wire = await (await app.request('/chat', json({ thread: userThread, clientRequestId: 't' }))).text();
    expect(execute).toHaveBeenCalledOnce();
    expect(wire).toContain('tool-result');
    expectClean(wire, `${label} tool error`);
  });

  it.each(ECHOES)('%s: span attributes, span events and status messages (recordContent on)', async (label, echo) => {
    // A tracer that keeps every write as text: the engine's spans take any structural Tracer.
    const written: string[] = [];
    const keep = (value: unknown) => written.push(typeof value === 'string' ? value : JSON.stringify(value));
    const span = {
      spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 }),
      isRecording: () => true,
      setAttribute: (key: string, value: unknown) => keep({ [key]: value }),
      setAttributes: (attributes: unknown) => keep(attributes),
      setStatus: (status: { message?: string }) => keep(status.message ?? ''),
      addEvent: (name: string, attributes: unknown) => keep({ name, attributes }),
      end: () => {},
    };
    const tracer = {
      startSpan: (name: string, options?: { attributes?: unknown }) => {
        keep(name);
        keep(options?.attributes ?? {});
        return span;
      },
    };
    const { provider } = leakyProvider(echo);
    const execute = vi.fn(() => {
      throw new Error(`tool failed with ${echo}`);
    });
    const app = createParlanceApp({
      models: [{ id: 'leaky:m', provider: 'leaky' }],
      env,
      run: engineRunner({ engine: { telemetry: { tracer, recordContent: true }, tools: [tool({ name: 'noop', input: { type: 'object', properties: {} }, execute })], resolveModel: () => provider.model('m') } }),
      onError: () => {},
    });
    await (await app.request('/chat', json({ thread: userThread, clientRequestId: `span-${label}` }))).text();
    // The upstream's 401 body is the chat and invoke_agent spans' status message: written, with no form of the key.
    expect(written.filter((text) => text.includes('HTTP 401')).length).toBeGreaterThanOrEqual(2);
    expectClean(written.join('\n'), `${label} spans`);
  });
});
