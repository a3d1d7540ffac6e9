/**
 * Stream bytes per step of a tool run: the AI SDK route (`createAiSdkRoutes`, what `useChat`
 * reads) beside the native route (`POST /chat`, what Parlance's client reads), same engine, same
 * mock model, same tools. A run of N model calls: N-1 call a server tool, the last answers. Per step
 * is (bytes of the 16-step run - bytes of the 1-step run) / 15, so it is the cost a step adds. Also
 * the bytes of the conversation the AI SDK client posts back after the run (what counts against
 * the body limit). Byte counts are exact (no timing); run: `node --import tsx bench/frontend-bytes.bench.ts`.
 */
import { defineProvider, resolveModel, tool } from '@parlance/engine';
import { mockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { createAiSdkRoutes } from '../src/frontends/index.ts';
import { engineRunner } from '../src/engine-runner.ts';
import { createParlanceApp } from '../src/index.ts';
import { createMemoryRunStore } from '../src/memory-run-store.ts';

const SECRET = 'bench-signing-secret-0123456789abcdef0123456789abcdef';

function server(steps: number, outputBytes: number) {
  const script: ScriptedTurn[] = [...Array.from({ length: steps - 1 }, (_, i) => ({ text: `Looking up ${i}.`, toolCalls: [{ id: `call_${i}`, name: 'lookup', input: { page: i } }] })), { text: 'Here is what I found.' }];
  const upstream = mockProviderServer({ dialect: 'anthropic_messages', script });
  const mock = defineProvider(
    { id: 'mock', baseURL: 'http://mock.invalid', auth: 'none', dialect: 'anthropic_messages', models: { model: { contextWindow: 1_000_000, maxOutputTokens: 4_096, input: ['text'] } } },
    { fetch: async (input, init) => upstream(new Request(input, init)), retry: false },
  );
  const lookup = tool({ name: 'lookup', input: { type: 'object', properties: { page: { type: 'number' } } }, execute: (input) => ({ page: (input as { page: number }).page, text: 'x'.repeat(outputBytes) }) });
  const options = {
    models: [{ id: 'mock:model', provider: 'mock' }],
    env: { PARLANCE_SECRET: SECRET },
    run: engineRunner({ engine: { maxSteps: steps, tools: [lookup], resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } }),
    store: createMemoryRunStore(),
  } satisfies Parameters<typeof createParlanceApp>[0];
  return { native: createParlanceApp(options), aiSdk: createAiSdkRoutes(options) };
}

async function bytesOf(response: Response): Promise<{ bytes: number; text: string }> {
  const text = await response.text();
  return { bytes: new TextEncoder().encode(text).length, text };
}

async function measure(steps: number, outputBytes: number) {
  // A server each: the mock model's script is played once per server.
  const { native } = server(steps, outputBytes);
  const { aiSdk } = server(steps, outputBytes);
  const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'look it up' }] };
  const json = { 'content-type': 'application/json' };
  const nativeRun = await bytesOf(await native.request('/chat', { method: 'POST', headers: json, body: JSON.stringify({ thread: { id: 't', version: 1, messages: [user] }, clientRequestId: crypto.randomUUID() }) }));
  const ai = await bytesOf(await aiSdk.request('http://localhost/', { method: 'POST', headers: json, body: JSON.stringify({ id: 't', messages: [user], trigger: 'submit-message' }) }));
  // The UI message as the AI SDK client builds it, then what it posts back with the next message.
  const { readUIMessageStream } = await import('ai');
  const chunks = ai.text.split('\n\n').flatMap((frame) => (frame.startsWith('data: {') ? [JSON.parse(frame.slice(6))] : []));
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: unknown;
  for await (const m of readUIMessageStream({ stream })) message = m;
  const posted = new TextEncoder().encode(JSON.stringify({ id: 't', messages: [user, message, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'thanks' }] }], trigger: 'submit-message' })).length;
  return { native: nativeRun.bytes, aiSdk: ai.bytes, posted };
}

console.log('Stream bytes per step of a 16-step tool run (bytes(16 steps) - bytes(1 step)) / 15; exact byte counts\n');
console.log('| tool output | native /chat per step | AI SDK route per step | AI SDK / native | AI SDK POST back per step | 16-step totals (native, AI SDK, POST) |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const outputBytes of [20, 5_000]) {
  const one = await measure(1, outputBytes);
  const sixteen = await measure(16, outputBytes);
  const per = (key: 'native' | 'aiSdk' | 'posted') => Math.round((sixteen[key] - one[key]) / 15);
  console.log(`| ${outputBytes} B | ${per('native')} B | ${per('aiSdk')} B | ${(per('aiSdk') / per('native')).toFixed(2)}x | ${per('posted')} B | ${sixteen.native}, ${sixteen.aiSdk}, ${sixteen.posted} |`);
}
