/**
 * One chat server under measurement, in its own process (forked by compare.bench.ts), so its
 * CPU and heap are its own. SYSTEM=parlance serves createParlanceApp with the real engine;
 * SYSTEM=aisdk serves the AI SDK's documented route (`streamText(...).toUIMessageStreamResponse()`
 * in Hono); SYSTEM=floor the floor (floor-server.ts: parse, stringify, write, per delta). All call the same mock upstream (MOCK_OPENAI: Chat Completions wire,
 * MOCK_ANTHROPIC: Messages wire) over HTTP on 127.0.0.1, both with one tool (`weather`).
 * The model id names the scenario (`d50`: 50 text deltas, `tool`: a tool round trip); the
 * wire is `openai` or `anthropic`.
 *
 * IPC: -> { type: 'cpu' } <- { type: 'cpu', micros }        (user + system CPU so far)
 *      -> { type: 'heap' } <- { type: 'heap', bytes }        (heap used after gc)
 *      -> { type: 'peak', watch } <- { type: 'peak', bytes } (watch: true starts sampling the heap used every 5 ms,
 *                                                          false stops; both answer the highest seen since the last)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { serve } from '@hono/node-server';
import { anthropic as anthropicProvider, openaiCompatible, resolveModel, tool as parlanceTool } from '@parlance/engine';
import { createMemoryRunStore, createParlanceApp, engineRunner } from '@parlance/server';
import { convertToModelMessages, stepCountIs, streamText, tool as aiTool, type UIMessage } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import { floorHandler } from './floor-server.ts';

export type ToServer = { type: 'cpu' } | { type: 'heap' } | { type: 'peak'; watch: boolean };
export type FromServer = { type: 'ready'; port: number } | { type: 'cpu'; micros: number } | { type: 'heap'; bytes: number } | { type: 'peak'; bytes: number };

const { SYSTEM, MOCK_OPENAI, MOCK_ANTHROPIC } = process.env;
if (!process.send || !MOCK_OPENAI || !MOCK_ANTHROPIC) throw new Error('server-process.ts is forked by compare.bench.ts');
const send = (message: FromServer) => process.send!(message);
const gc = (globalThis as { gc?: () => void }).gc;

const weather = async ({ city }: { city: string }) => ({ city, celsius: 21 });
const KEY = 'sk-bench-not-a-secret';

function parlanceApp() {
  const providers = {
    openai: openaiCompatible({ id: 'openai', baseURL: `${MOCK_OPENAI}/v1`, apiKeyEnv: 'BENCH_KEY' }),
    anthropic: anthropicProvider,
  };
  return createParlanceApp({
    models: ['d50', 'd1000', 'd2000', 'd5000', 'd20000', 'p50', 'p500', 'c50', 'tool'].flatMap((id) => [
      { id: `openai:${id}`, provider: 'openai' },
      { id: `anthropic:${id}`, provider: 'anthropic' },
    ]),
    env: { BENCH_KEY: KEY },
    // Signing on, as in production (the trust boundary is part of what a chat costs).
    secret: 'bench-signing-secret-not-a-real-one-0123456789',
    // The per-delta measure sends threads of up to 10,001 messages.
    maxBodyBytes: 16 * 2 ** 20,
    store: createMemoryRunStore(),
    run: engineRunner({
      engine: {
        tools: [parlanceTool({ name: 'weather', description: 'Weather in a city', input: z.object({ city: z.string() }), execute: weather })],
        resolveModel: (spec, o) =>
          resolveModel(spec, { ...o, providers, apiKey: KEY, ...(String((spec as { provider?: unknown }).provider ?? spec).startsWith('anthropic') ? { baseURL: MOCK_ANTHROPIC } : {}) }),
      },
    }),
  });
}

function aiSdkApp() {
  const openai = createOpenAI({ baseURL: `${MOCK_OPENAI}/v1`, apiKey: KEY });
  const anthropic = createAnthropic({ baseURL: `${MOCK_ANTHROPIC}/v1`, apiKey: KEY });
  const app = new Hono();
  app.post('/chat', async (c) => {
    const { messages, model, wire } = await c.req.json<{ messages: UIMessage[]; model: string; wire: 'openai' | 'anthropic' }>();
    const result = streamText({
      model: wire === 'anthropic' ? anthropic(model) : openai.chat(model),
      messages: await convertToModelMessages(messages),
      tools: { weather: aiTool({ description: 'Weather in a city', inputSchema: z.object({ city: z.string() }), execute: weather }) },
      stopWhen: stepCountIs(5),
      // The mock's model ids are unknown to the SDK (it would cap Anthropic at 4,096 tokens and warn).
      maxOutputTokens: 100_000,
    });
    return result.toUIMessageStreamResponse();
  });
  return app;
}

function listen(): Server {
  if (SYSTEM === 'floor') return createServer(floorHandler({ openai: MOCK_OPENAI!, anthropic: MOCK_ANTHROPIC!, key: KEY }, weather)).listen(0, '127.0.0.1');
  const app = SYSTEM === 'aisdk' ? aiSdkApp() : parlanceApp();
  return serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
}
const server = listen();
server.once('listening', () => send({ type: 'ready', port: (server.address() as AddressInfo).port }));

// The heap is sampled only while a measure asks (the concurrency step): process.memoryUsage() reads /proc, and
// sampling all the time put ~1 µs of the sampler's own CPU into every streamed delta of every system.
let peak = 0;
let sampler: ReturnType<typeof setInterval> | undefined;
const sample = () => {
  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;
};

process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToServer) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', micros: user + system });
  } else if (message.type === 'heap') {
    void (async () => {
      for (let i = 0; i < 3; i++) {
        gc?.();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      send({ type: 'heap', bytes: process.memoryUsage().heapUsed });
    })();
  } else if (message.type === 'peak') {
    if (sampler !== undefined) sample();
    clearInterval(sampler);
    sampler = message.watch ? setInterval(sample, 5) : undefined;
    sampler?.unref();
    send({ type: 'peak', bytes: peak });
    peak = 0;
  }
});
