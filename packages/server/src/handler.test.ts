import { describe, expect, it } from 'vitest';
import { chatRequest, frames, gate, readAll, textOf, textRunner, userThread } from '../test/helpers.ts';
import { createParlanceApp, type ParlanceServerOptions } from './handler.ts';
import { createMemoryRunStore } from './memory-run-store.ts';

const models = [
  { id: 'mock:echo', provider: 'mock', name: 'Echo' },
  { id: 'mock:premium', provider: 'mock', name: 'Premium' },
];

function appWith(overrides: Partial<ParlanceServerOptions> = {}, words = ['Hi', ' there', '!']) {
  const { runner, calls } = textRunner(words);
  let n = 0;
  const app = createParlanceApp({ run: runner, models, generateId: (p) => `${p}_${++n}`, env: { MOCK_KEY: 'sk-secret-123' }, ...overrides });
  return { app, calls };
}

describe('POST /chat', () => {
  it('streams protocol events as SSE with resumable ids, server-assigned message ids and streaming headers', async () => {
    const { app, calls } = appWith();
    const res = await app.request('/chat', chatRequest({ thread: userThread, model: 'mock:echo', clientRequestId: 'c1' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-encoding')).toBe('identity');
    const runId = res.headers.get('x-parlance-run-id')!;
    const all = await readAll(res);
    expect(all.map((f) => f.id)).toEqual(all.map((_, i) => String(i)));
    // The type is in the JSON, so frames carry no `event:` line.
    expect(all.every((f) => f.event === undefined && typeof f.data?.type === 'string')).toBe(true);
    const start = all.find((f) => f.data?.type === 'message-start')!.data!;
    expect(start.type === 'message-start' && start.messageId).toMatch(/^msg_/);
    expect(textOf(all.map((f) => f.data))).toBe('Hi there!');
    expect(all.filter((f) => f.data?.type === 'chat-finish')).toHaveLength(1);
    expect(all.at(-1)?.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(calls[0]!.thread.messages[0]!.id).toBe('u1');
    expect(calls[0]!.model).toBe('mock:echo');
  });

  it('accepts bare messages and uses the default model', async () => {
    const { app, calls } = appWith();
    const res = await app.request('/chat', chatRequest({ messages: userThread.messages, clientRequestId: 'c1' }));
    expect(res.status).toBe(200);
    await readAll(res);
    expect(calls[0]!.model).toBe('mock:echo');
    expect(calls[0]!.thread.messages).toHaveLength(1);
  });

  it('does not start a second run for a repeated clientRequestId', async () => {
    const { app, calls } = appWith();
    const body = { thread: userThread, clientRequestId: 'same' };
    const first = await app.request('/chat', chatRequest(body));
    const second = await app.request('/chat', chatRequest(body));
    const [a, b] = await Promise.all([readAll(first), readAll(second)]);
    expect(calls).toHaveLength(1);
    expect(second.headers.get('x-parlance-run-id')).toBe(first.headers.get('x-parlance-run-id'));
    expect(b).toEqual(a);
  });

  it('continues a paused run in the same response, passing tool results, approvals and answers to the loop', async () => {
    const { app, calls } = appWith();
    const resume = { toolResults: [{ toolCallId: 'c1', output: { ok: true } }], approvals: [{ toolCallId: 'c2', approved: false, reason: 'no' }], answers: [{ toolCallId: 'c3', answer: 'blue' }] };
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'r', resume }));
    await readAll(res);
    expect(calls[0]!.resume).toEqual(resume);
  });

  it('reads provider keys from the runtime environment, never from the request', async () => {
    const { app, calls } = appWith();
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'k' }, { 'x-api-key': 'from-request', authorization: 'Bearer from-request' }));
    await readAll(res);
    expect(calls[0]!.env).toEqual({ MOCK_KEY: 'sk-secret-123' });
    expect(JSON.stringify(calls[0]!.options)).not.toContain('from-request');
  });

  it('sends a heartbeat comment while the model is silent', async () => {
    const g = gate();
    const { runner } = textRunner(['late'], { gates: [g.promise] });
    const app = createParlanceApp({ run: runner, models, heartbeatMs: 5 });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'h' }));
    let sawPing = false;
    for await (const frame of frames(res)) {
      if (frame.comment === 'ping' && !sawPing) {
        sawPing = true;
        g.open();
      }
      if (frame.data?.type === 'chat-finish') break;
    }
    expect(sawPing).toBe(true);
  });

  it('calls onFinish once with the halt reason and usage', async () => {
    const finishes: unknown[] = [];
    const { app } = appWith({ onFinish: (f) => void finishes.push(f) });
    await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'f' })));
    expect(finishes).toEqual([expect.objectContaining({ haltReason: 'completed', model: 'mock:echo', usage: { inputTokens: 3, outputTokens: 3 } })]);
  });
});

describe('resume', () => {
  it('replays exactly the missed events after Last-Event-ID, then follows live, with one upstream run', async () => {
    const gates = [gate(), gate(), gate(), gate()];
    const { runner, calls } = textRunner(['a', 'b', 'c', 'd'], { gates: gates.map((g) => g.promise) });
    const app = createParlanceApp({ run: runner, models });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'x' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    const seen: { id?: string; type?: string }[] = [];
    const disconnect = new AbortController();
    gates[0]!.open();
    for await (const frame of frames(res, disconnect.signal)) {
      if (frame.comment) continue;
      seen.push({ id: frame.id, type: frame.data?.type });
      if (frame.data?.type === 'text-delta') break; // disconnect after the first delta
    }
    // The client is gone; the run goes on.
    gates[1]!.open();
    gates[2]!.open();
    const resumed = await app.request(`/runs/${runId}/events`, { headers: { 'Last-Event-ID': seen.at(-1)!.id! } });
    expect(resumed.status).toBe(200);
    gates[3]!.open();
    const rest = await readAll(resumed);
    const ids = [...seen.map((s) => s.id), ...rest.map((f) => f.id)];
    expect(ids).toEqual(ids.map((_, i) => String(i)));
    expect(textOf(rest.map((f) => f.data))).toBe('bcd');
    expect(rest.at(-1)?.data?.type).toBe('chat-finish');
    expect(calls).toHaveLength(1);
  });

  it('keeps running when the client disconnects without cancelling', async () => {
    const store = createMemoryRunStore();
    const { runner } = textRunner(['one', 'two', 'three'], { delayMs: 2 });
    const app = createParlanceApp({ run: runner, models, store });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'd' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    await res.body!.cancel();
    const all = [];
    for await (const stored of store.follow(runId, -1)) all.push(stored.event);
    expect(textOf(all)).toBe('onetwothree');
    expect(all.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
  });
});

describe('POST /runs/:runId/cancel', () => {
  it('aborts the run from another request: one chat-finish cancelled, partial text kept', async () => {
    const gates = [gate(), gate(), gate()];
    const { runner, calls } = textRunner(['kept', ' lost', ' lost'], { gates: gates.map((g) => g.promise) });
    const app = createParlanceApp({ run: runner, models });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'c' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    gates[0]!.open();
    const events = [];
    for await (const frame of frames(res)) {
      if (!frame.data) continue;
      events.push(frame.data);
      if (frame.data.type === 'text-delta') {
        const cancel = await app.request(`/runs/${runId}/cancel`, { method: 'POST' });
        expect(cancel.status).toBe(202);
        expect(await cancel.json()).toEqual({ ok: true, status: 'running' });
      }
    }
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(textOf(events)).toBe('kept');
    expect(events.filter((e) => e.type === 'chat-finish')).toEqual([{ type: 'chat-finish', haltReason: 'cancelled', usage: {} }]);
  });

  it('ends the run with chat-finish cancelled even if the runner ignores the signal', async () => {
    const g = gate();
    let n = 0;
    const app = createParlanceApp({
      models,
      generateId: (p) => `${p}_${++n}`,
      async *run() {
        yield { type: 'message-start' };
        await g.promise;
        throw new Error('upstream gone');
      },
    });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'i' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    await app.request(`/runs/${runId}/cancel`, { method: 'POST' });
    g.open();
    const all = await readAll(res);
    expect(all.at(-1)?.data).toEqual({ type: 'chat-finish', haltReason: 'cancelled', usage: {} });
    expect(JSON.stringify(all)).not.toContain('at ');
  });
});

describe('GET /models', () => {
  it('lists the offered models, filtered by the per-principal allow-list', async () => {
    const { app } = appWith({ authorize: (r) => (r.headers.get('x-user') ? { id: r.headers.get('x-user')! } : undefined), allowModel: (p, m) => p?.id === 'admin' || m === 'mock:echo' });
    const user = await app.request('/models', { headers: { 'x-user': 'bob' } });
    expect(await user.json()).toEqual({ models: [models[0]] });
    const admin = await app.request('/models', { headers: { 'x-user': 'admin' } });
    expect(((await admin.json()) as { models: unknown[] }).models).toHaveLength(2);
  });
});

describe('bad input', () => {
  const cases: [string, () => Response | Promise<Response>, number, string][] = [];
  const { app } = appWith({ maxBodyBytes: 2048, authorize: (r) => (r.headers.get('x-user') ? { id: r.headers.get('x-user')! } : undefined), allowModel: (_p, m) => m !== 'mock:premium' });
  const auth = { 'x-user': 'ann' };
  cases.push(['malformed JSON', () => app.request('/chat', chatRequest('{"thread":', auth)), 400, 'invalid_request']);
  cases.push(['wrong types', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 5 }, auth)), 400, 'invalid_request']);
  cases.push(['no thread or messages', () => app.request('/chat', chatRequest({ clientRequestId: 'a' }, auth)), 400, 'invalid_request']);
  cases.push(['unknown fields', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a', apiKey: 'x' }, auth)), 400, 'invalid_request']);
  cases.push(['an invalid message', () => app.request('/chat', chatRequest({ thread: { ...userThread, messages: [{ id: 'u', role: 'robot', parts: [] }] }, clientRequestId: 'a' }, auth)), 400, 'invalid_request']);
  cases.push(['a body over the limit', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a', options: { pad: 'x'.repeat(4096) } }, auth)), 413, 'invalid_request']);
  cases.push(['an unknown model', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a', model: 'openai:nope' }, auth)), 400, 'invalid_request']);
  cases.push(['a forbidden model', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a', model: 'mock:premium' }, auth)), 403, 'permission']);
  cases.push(['missing auth', () => app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a' })), 401, 'authentication']);
  cases.push(['an unknown run (events)', () => app.request('/runs/run_nope/events', { headers: auth }), 404, 'not_found']);
  cases.push(['an unknown run (cancel)', () => app.request('/runs/run_nope/cancel', { method: 'POST', headers: auth }), 404, 'not_found']);
  cases.push(['an unknown route', () => app.request('/nope', { headers: auth }), 404, 'not_found']);
  for (const [name, send, status, code] of cases) {
    it(`refuses ${name} with ${status} and code ${code}`, async () => {
      const res = await send();
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string; issues?: unknown[] } };
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(0);
      const text = JSON.stringify(body);
      expect(text).not.toContain('sk-secret-123');
      expect(text).not.toMatch(/\n\s+at /);
      if (status === 400 && name !== 'malformed JSON' && name !== 'an unknown model') expect(body.error.issues?.length).toBeGreaterThan(0);
    });
  }

  it("does not let one principal read or cancel another's run", async () => {
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'own' }, auth));
    const runId = res.headers.get('x-parlance-run-id')!;
    await readAll(res);
    const other = await app.request(`/runs/${runId}/events`, { headers: { 'x-user': 'eve' } });
    expect(other.status).toBe(404);
  });

  it('lets the rate-limit hook refuse a request', async () => {
    const { app: limited } = appWith({ rateLimit: () => Response.json({ error: { code: 'rate_limited', message: 'Slow down' } }, { status: 429 }) });
    const res = await limited.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a' }));
    expect(res.status).toBe(429);
  });

  it('hides unexpected errors behind a generic message', async () => {
    const { app: broken } = appWith({ models: () => { throw new Error('db password=hunter2 at connect'); } });
    const res = await broken.request('/models');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'server_error', message: 'Internal error' } });
  });
});

describe('secrets', () => {
  it('scrubs secret environment values from error events and chat-finish, whatever the runner says', async () => {
    const app = createParlanceApp({
      models,
      env: { OPENAI_API_KEY: 'sk-live-abcdef123456', REGION: 'eu-west-1-long-value' },
      async *run() {
        yield { type: 'message-start' };
        yield { type: 'error', code: 'authentication', message: 'Incorrect API key provided: sk-live-abcdef123456', retryable: false };
        yield { type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: 'authentication', message: 'key sk-live-abcdef123456' } };
      },
    });
    const raw = JSON.stringify(await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 's' }))));
    expect(raw).not.toContain('sk-live-abcdef123456');
    expect(raw).toContain('Incorrect API key provided: [redacted]');
  });

  it('scrubs a secret split across streamed deltas, and a runner failing mid-block still gets its held text out', async () => {
    const app = createParlanceApp({
      models,
      env: { OPENAI_API_KEY: 'sk-live-abcdef123456' },
      async *run() {
        yield { type: 'message-start' };
        yield { type: 'text-start', id: 't1' };
        yield { type: 'text-delta', id: 't1', delta: 'key: sk-live-ab' };
        yield { type: 'text-delta', id: 't1', delta: 'cdef123456, or sk-li' };
        throw new Error('upstream went away');
      },
    });
    const events = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 's' })))).map((f) => f.data);
    expect(JSON.stringify(events)).not.toContain('abcdef123456');
    expect(textOf(events)).toBe('key: [redacted], or sk-li');
    expect(events.slice(-3).map((e) => e?.type)).toEqual(['text-delta', 'error', 'chat-finish']);
  });

  it.each([
    ['ends its stream', undefined],
    ['is stopped at maxRunMs', 50],
  ])('gives back the text it held when a runner %s mid-block', async (_, maxRunMs) => {
    const app = createParlanceApp({
      models,
      env: { OPENAI_API_KEY: 'sk-live-abcdef123456' },
      store: createMemoryRunStore(maxRunMs ? { limits: { maxRunMs } } : {}),
      async *run() {
        yield { type: 'message-start' };
        yield { type: 'text-delta', id: 't1', delta: 'cut at sk-live' };
        if (maxRunMs) await new Promise(() => {});
      },
    });
    const events = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'e' })))).map((f) => f.data);
    expect(textOf(events)).toBe('cut at sk-live');
    expect(events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'error' });
  });
});
