// The Worker inside workerd (vitest-pool-workers), reached through SELF.fetch like a
// deployed Worker. No key is bound here, so it offers the mock model, which answers
// in the Anthropic Messages wire format through an injected fetch (no network).
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../src/index.ts';
import type { WorkerEnv } from '../src/api.ts';
import { MOCK_MODEL_ID } from '../src/mock-provider.ts';
import { BASE, postChat } from './self.ts';
import { chatBody, readFrames, reasoningOf, textOf } from './sse.ts';

describe('POST /api/chat in workerd', () => {
  it('streams a chat from the mock provider through the engine as SSE, ending with one chat-finish', async () => {
    const res = await postChat(chatBody('Hello from workerd'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const runId = res.headers.get('x-parlance-run-id');
    expect(runId).toMatch(/^run_/);

    const { frames } = await readFrames(res);
    const types = frames.map((f) => f.data.type);
    expect(types[0]).toBe('step-start');
    expect(types).toContain('message-start');
    // Resumable ids: `<runId>:<sequence>`, counting up from 0 without gaps.
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => String(i)));

    expect(reasoningOf(frames)).toBe('No provider key is set, so the mock model answers.');
    const text = textOf(frames);
    // The mock echoes the user's message: it went through the Worker, the engine and the Anthropic encoding.
    expect(text).toMatch(/^You said: "Hello from workerd"\. This is Parlance's mock model/);
    expect(frames.filter((f) => f.data.type === 'text-delta').length).toBeGreaterThan(10);

    const finishes = frames.filter((f) => f.data.type === 'chat-finish');
    expect(finishes).toHaveLength(1);
    expect(frames.at(-1)!.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 12, outputTokens: 40 } });
    // The final thread holds the assistant's answer, for the client to store.
    const finish = frames.at(-1)!.data as { thread?: { messages: { role: string; parts: { type: string; text?: string }[] }[] } };
    const answer = finish.thread?.messages.at(-1);
    expect(answer?.role).toBe('assistant');
    expect(answer?.parts.find((p) => p.type === 'text')?.text).toBe(text);
  });

  it('replays a finished run from Last-Event-ID without repeating what the client already has', async () => {
    // Both requests run to completion before the next starts: workerd does not let one
    // request wait on promises another request resolves, so only finished runs are resumed here.
    const response = await postChat(chatBody('resume me'));
    const runId = response.headers.get('x-parlance-run-id')!;
    const first = await readFrames(response);
    const res = await SELF.fetch(`${BASE}/api/runs/${runId}/events`, { headers: { 'Last-Event-ID': first.frames[4]!.id! } });
    expect(res.status).toBe(200);
    const rest = await readFrames(res);
    expect(rest.frames.map((f) => f.id)).toEqual(first.frames.slice(5).map((f) => f.id));
    expect(rest.frames.filter((f) => f.data.type === 'chat-finish')).toHaveLength(1);
  });
});

describe('GET /api/models in workerd', () => {
  it('offers only the mock model when no provider key is bound', async () => {
    const res = await SELF.fetch(`${BASE}/api/models`);
    expect(res.status).toBe(200);
    const { models } = (await res.json()) as { models: { id: string; provider: string; name?: string }[] };
    expect(models).toEqual([expect.objectContaining({ id: MOCK_MODEL_ID, provider: 'mock' })]);
    expect(models[0]!.name).toMatch(/no API key/);
  });

  it('offers the models of each provider whose key is bound, and no mock, and never returns a key', async () => {
    // The Worker's bindings are its `env`: call the app as the runtime would, with a key bound.
    const bindings = { ...(env as unknown as WorkerEnv), ANTHROPIC_API_KEY: 'sk-ant-bound-secret', OPENAI_API_KEY: '' };
    const res = await worker.fetch(new Request(`${BASE}/api/models`), bindings, createExecutionContext());
    const raw = await res.text();
    const ids = (JSON.parse(raw) as { models: { id: string }[] }).models.map((m) => m.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id.startsWith('anthropic:'))).toBe(true);
    expect(raw).not.toContain('sk-ant-bound-secret');
  });
});

describe('bad input in workerd', () => {
  it('answers a body that is not JSON with a 400 invalid_request', async () => {
    const res = await postChat('{"messages": [');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/not valid JSON/);
  });

  it('answers a model that is not offered with a 400 naming it', async () => {
    const res = await postChat(chatBody('hi', { model: 'anthropic:claude-sonnet-4-5' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request' });
    expect(body.error.message).toContain('anthropic:claude-sonnet-4-5');
  });

  it('answers a body without messages or thread with the issues found', async () => {
    const res = await postChat(JSON.stringify({ clientRequestId: 'x' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string[] }[] } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.issues[0]!.path).toEqual(['thread']);
  });

  it('answers an unknown route with a 404 JSON error', async () => {
    const res = await SELF.fetch(`${BASE}/api/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
