// The server with the real engine behind it, talking to a mock provider in a real wire
// format (Anthropic Messages SSE) through the providers' fetch transport.
import { openaiCompatible, resolveModel, tool } from '@parlance/engine';
import { threadAfterRun, type Event, type Thread } from '@parlance/protocol';
import { mockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chatRequest, frames, readAll, textOf, userThread } from '../test/helpers.ts';
import { anthropic } from '@parlance/engine/providers/anthropic';
import { catalogModels, engineRunner, engineRunnerWith, modelEntries } from './engine-runner.ts';
import { createParlanceApp } from './handler.ts';

function setup(script: ScriptedTurn[], tools: Parameters<typeof engineRunner>[0] = {}) {
  const upstream = mockProviderServer({ dialect: 'openai_completions', script });
  const signals: AbortSignal[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (init?.signal) signals.push(init.signal);
    return upstream(new Request(input, init));
  };
  const mock = openaiCompatible({ id: 'mock', baseURL: 'http://mock.local/v1', apiKeyEnv: 'MOCK_API_KEY', fetch });
  const app = createParlanceApp({
    models: [{ id: 'mock:model', provider: 'mock' }],
    env: { MOCK_API_KEY: 'sk-mock-secret', PARLANCE_SECRET: 'engine-runner-test-secret-0123456789abcdef' },
    run: engineRunner({
      engine: { ...tools.engine, resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) },
    }),
  });
  return { app, upstream, signals };
}

describe('engineRunner', () => {
  it('streams a chat from the provider through the engine, with server-assigned message ids', async () => {
    const { app, upstream } = setup([{ text: 'Hello from the mock', usage: { inputTokens: 5, outputTokens: 4 } }]);
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'a', options: { temperature: 0.2 } }));
    const events = (await readAll(res)).map((f) => f.data!);
    expect(textOf(events)).toBe('Hello from the mock');
    const start = events.find((e) => e.type === 'message-start');
    expect(start?.type === 'message-start' && start.messageId).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    const finish = events.at(-1)!;
    expect(finish).toMatchObject({ type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 5, outputTokens: 4 } });
    expect(upstream.requests).toHaveLength(1);
    expect((upstream.requests[0]!.body as { temperature?: number }).temperature).toBe(0.2);
  });

  it('cancel while text streams aborts the upstream request and keeps the partial answer', async () => {
    const { app, signals } = setup([{ text: ['one ', 'two ', 'three ', 'four ', 'five'], delayMs: 30 }]);
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'b' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    const events: Event[] = [];
    for await (const frame of frames(res)) {
      if (!frame.data) continue;
      events.push(frame.data);
      if (frame.data.type === 'text-delta' && events.filter((e) => e.type === 'text-delta').length === 1) {
        expect((await app.request(`/runs/${runId}/cancel`, { method: 'POST' })).status).toBe(202);
      }
    }
    expect(signals[0]!.aborted).toBe(true);
    const text = textOf(events);
    expect(text.startsWith('one')).toBe(true);
    expect(text).not.toContain('five');
    const finishes = events.filter((e) => e.type === 'chat-finish');
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toMatchObject({ haltReason: 'cancelled' });
    const thread = threadAfterRun(userThread as Thread, events);
    expect(thread.messages.at(-1)?.parts.find((p) => p.type === 'text')).toMatchObject({ text });
  });

  it('cancel while a tool runs aborts the tool and ends the run cancelled', async () => {
    let toolSignal: AbortSignal | undefined;
    let started!: () => void;
    const toolStarted = new Promise<void>((r) => (started = r));
    const slow = tool({
      name: 'slow',
      input: z.object({}),
      execute: (_input, { signal }) => {
        toolSignal = signal;
        started();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      },
    });
    const { app } = setup([{ toolCalls: [{ name: 'slow', input: {} }] }, { text: 'never' }], { engine: { tools: [slow] } });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'c' }));
    const runId = res.headers.get('x-parlance-run-id')!;
    const reading = readAll(res);
    await toolStarted;
    await app.request(`/runs/${runId}/cancel`, { method: 'POST' });
    const events = (await reading).map((f) => f.data!);
    expect(toolSignal?.aborted).toBe(true);
    expect(textOf(events)).toBe('');
    expect(events.filter((e) => e.type === 'chat-finish')).toEqual([expect.objectContaining({ haltReason: 'cancelled' })]);
  });

  it('refuses a browser-declared tool named like a server tool with a typed 403 error, before any upstream request', async () => {
    const weather = tool({ name: 'weather', input: z.object({}), execute: () => 'sunny' });
    const upstream = mockProviderServer({ dialect: 'openai_completions', script: [{ text: 'never' }] });
    let requests = 0;
    const fetch: typeof globalThis.fetch = async (input, init) => (requests++, upstream(new Request(input, init)));
    const mock = openaiCompatible({ id: 'mock', baseURL: 'http://mock.local/v1', apiKeyEnv: 'MOCK_API_KEY', fetch });
    const run = engineRunner({ engine: { tools: [weather], resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } });
    const app = createParlanceApp({
      models: [{ id: 'mock:model', provider: 'mock' }],
      env: { MOCK_API_KEY: 'sk-mock-secret', PARLANCE_SECRET: 'engine-runner-test-secret-0123456789abcdef' },
      // As the AG-UI route passes what the browser declared.
      run: (input) => run({ ...input, clientTools: [{ name: 'weather', inputSchema: { type: 'object' } }] }),
    });
    const events = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'clash' })))).map((f) => f.data!);
    expect(events[0]).toMatchObject({ type: 'error', code: 'permission', message: expect.stringContaining('"weather"') });
    expect(events.filter((e) => e.type === 'chat-finish')).toEqual([expect.objectContaining({ haltReason: 'error' })]);
    expect(requests).toBe(0);
  });

  it('continues a run paused for approval with one POST that resumes the loop', async () => {
    const ran: unknown[] = [];
    const pay = tool({ name: 'pay', input: z.object({ amount: z.number() }), needsApproval: true, execute: (input) => (ran.push(input), 'paid') });
    const { app, upstream } = setup([{ toolCalls: [{ id: 'call_pay', name: 'pay', input: { amount: 5 } }] }, { text: 'Done, paid.' }], {
      engine: { tools: [pay] },
    });
    const first = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'p1' })))).map((f) => f.data!);
    expect(first.some((e) => e.type === 'approval-requested' && e.toolCallId === 'call_pay')).toBe(true);
    const paused = first.at(-1)!;
    expect(paused).toMatchObject({ type: 'chat-finish', haltReason: 'approval' });
    expect(ran).toEqual([]);
    const thread = threadAfterRun(userThread as Thread, first);
    const second = (
      await readAll(await app.request('/chat', chatRequest({ thread, clientRequestId: 'p2', resume: { approvals: [{ toolCallId: 'call_pay', approved: true }] } })))
    ).map((f) => f.data!);
    expect(ran).toEqual([{ amount: 5 }]);
    expect(second.find((e) => e.type === 'tool-result')).toMatchObject({ toolCallId: 'call_pay', output: 'paid' });
    expect(textOf(second)).toBe('Done, paid.');
    expect(second.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
    expect(upstream.requests).toHaveLength(2);
  });

  it('refuses options a browser may not set, before any upstream request', async () => {
    const { app, upstream } = setup([{ text: 'x' }]);
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'o', options: { extra: { api_key: 'x' }, tools: [] } }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: unknown[] }[] } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.issues[0]!.path[0]).toBe('options');
    expect(upstream.requests).toHaveLength(0);
  });

  it('never sends the provider key to the browser, even when the provider fails', async () => {
    const { app, upstream } = setup([{ error: { code: 'authentication', message: 'bad key sk-mock-secret', status: 401 } }]);
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'k' }));
    const raw = JSON.stringify(await readAll(res));
    expect(raw).toContain('"haltReason":"error"');
    expect(raw).not.toContain('sk-mock-secret');
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer sk-mock-secret');
  });
});

describe('catalogModels', () => {
  it('describes offered models with capabilities from the catalog, and unknown ones with safe defaults', () => {
    const [known, unknown] = catalogModels(['anthropic:claude-sonnet-4-5', 'mock:whatever']);
    expect(known).toMatchObject({ id: 'anthropic:claude-sonnet-4-5', provider: 'anthropic', capabilities: { known: true } });
    expect((known!.capabilities!.input as string[]).includes('image')).toBe(true);
    expect(unknown).toMatchObject({ provider: 'mock', capabilities: { known: false } });
  });
});

describe('modelEntries', () => {
  it('describes provider models as catalogModels describes their ids', () => {
    const models = [anthropic.model('claude-sonnet-4-5'), anthropic.model('claude-unknown-1')];
    expect(modelEntries(models)).toEqual(catalogModels(['anthropic:claude-sonnet-4-5', 'anthropic:claude-unknown-1']));
  });
});

describe('engineRunnerWith', () => {
  const env = { ANTHROPIC_API_KEY: 'sk-ant-runner-secret', PARLANCE_SECRET: 'engine-runner-test-secret-0123456789abcdef' };

  it('runs the ids modelEntries offers against the providers it is given', async () => {
    const upstream = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'Hello from the entry point' }] });
    const fetch: typeof globalThis.fetch = async (input, init) => upstream(new Request(input, init));
    const app = createParlanceApp({ models: modelEntries([anthropic.model('claude-sonnet-4-5')]), env, run: engineRunnerWith([anthropic], { engine: { fetch } }) });
    const res = await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'with-1', model: 'anthropic:claude-sonnet-4-5' }));
    expect(textOf((await readAll(res)).map((f) => f.data!))).toBe('Hello from the entry point');
    expect(upstream.requests[0]!.headers['x-api-key']).toBe('sk-ant-runner-secret');
  });

  it('ends a run for a provider it was not given with one typed error', async () => {
    const app = createParlanceApp({ models: [{ id: 'openai:gpt-5', provider: 'openai' }], env, run: engineRunnerWith([anthropic]), onError: () => {} });
    const events = (await readAll(await app.request('/chat', chatRequest({ thread: userThread, clientRequestId: 'with-2', model: 'openai:gpt-5' })))).map((f) => f.data!);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Unknown provider "openai"') });
    expect(events.filter((e) => e.type === 'chat-finish')).toHaveLength(1);
  });
});
