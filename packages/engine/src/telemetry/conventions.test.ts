// Span attribute names checked against the names the OpenTelemetry semantic conventions publish
// (`@opentelemetry/semantic-conventions/incubating`, read here, not copied), and content kept off
// spans unless recordContent opts in: tool error messages and upstream error bodies are content.
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { mockProviderServer, fakeModel, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine, defineProvider, tool } from '../index.ts';
import { memoryTracer, type SpanRecord } from '../../test/fixtures/tracing.ts';

/** Every attribute name the package publishes (its ATTR_* constants). */
const PUBLISHED = new Set<string>(Object.entries(semconv).flatMap(([key, value]) => (key.startsWith('ATTR_') && typeof value === 'string' ? [value] : [])));
const SECRET = 'sk-live-0123456789abcdefSECRET';

const weather = tool({ name: 'weather', description: 'Weather in a city', input: z.object({ city: z.string() }), execute: ({ city }) => ({ city, tempC: 21 }) });
const leaky = tool({
  name: 'leaky',
  input: z.object({}),
  execute: () => {
    throw new Error(`upstream refused key ${SECRET}`);
  },
});

function providerModel(script: ScriptedTurn[]) {
  const upstream = mockProviderServer({ dialect: 'anthropic_messages', script });
  const provider = defineProvider(
    { id: 'mock', baseURL: 'https://llm.example.test:8443/v1', auth: 'none', dialect: 'anthropic_messages', models: { model: { contextWindow: 32_000, maxOutputTokens: 4_096, input: ['text'] } } },
    { fetch: async (input, init) => upstream(new Request(input, init)), retry: false },
  );
  return provider.model('model');
}

function names(spans: SpanRecord[]): string[] {
  return [...new Set(spans.flatMap((s) => Object.keys(s.attributes)))].filter((name) => !name.startsWith('parlance.')).sort();
}

describe('span attributes by the semantic conventions', () => {
  it('uses only published names: server.address/port on chat spans, reasoning tokens, tool definitions with content on', async () => {
    const { tracer, spans } = memoryTracer();
    const model = providerModel([{ text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Paris' } }] }, { text: 'It is 21 °C.' }]);
    await createEngine({ model, tools: [weather], telemetry: { tracer, recordContent: true, agentName: 'helper' } }).chat({ prompt: 'Weather?' });
    const reasoning = memoryTracer();
    await createEngine({ model: fakeModel({ script: [{ text: 'hm', usage: { inputTokens: 3, outputTokens: 9, reasoningTokens: 7 } }] }), telemetry: { tracer: reasoning.tracer } }).chat({ prompt: 'think' });
    const all = [...spans(), ...reasoning.spans()];
    const unpublished = names(all).filter((name) => !PUBLISHED.has(name));
    expect(unpublished).toEqual([]);

    const chat = spans().find((s) => s.name === 'chat model')!;
    expect(chat.attributes[semconv.ATTR_SERVER_ADDRESS]).toBe('llm.example.test');
    expect(chat.attributes[semconv.ATTR_SERVER_PORT]).toBe(8443);
    expect(JSON.parse(chat.attributes[semconv.ATTR_GEN_AI_TOOL_DEFINITIONS] as string)).toEqual([
      { type: 'function', name: 'weather', description: 'Weather in a city', parameters: weather.definition.inputSchema },
    ]);
    const reasoned = reasoning.spans().find((s) => s.name.startsWith('chat '))!;
    expect(reasoned.attributes[semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS]).toBe(7);
  });

  it('records no tool definitions, tool error message or upstream error body unless content is opted in', async () => {
    for (const recordContent of [false, true]) {
      const { tracer, spans } = memoryTracer();
      const model = providerModel([
        { toolCalls: [{ id: 'c1', name: 'leaky', input: {} }] },
        { error: { code: 'authentication', message: `invalid x-api-key: ${SECRET}`, status: 401 } },
      ]);
      const result = await createEngine({ model, tools: [leaky, weather], telemetry: { tracer, recordContent } }).chat({ prompt: 'go' });
      expect(result.haltReason).toBe('error');
      const all = spans();
      const text = JSON.stringify(all);
      const failed = all.filter((s) => s.status.code === 2);
      // The tool span, the failed chat span and the run span.
      expect(failed.map((s) => s.name).sort()).toEqual(['chat model', 'execute_tool leaky', 'invoke_agent']);
      if (recordContent) {
        // Opted in: the messages as the error said them (the provider layer already redacts what looks like a key).
        const status = Object.fromEntries(failed.map((s) => [s.name, s.status.message]));
        expect(status['execute_tool leaky']).toContain(SECRET);
        expect(status['chat model']).toContain('invalid x-api-key');
        expect(status.invoke_agent).toContain('invalid x-api-key');
        expect(text).toContain(semconv.ATTR_GEN_AI_TOOL_DEFINITIONS);
      } else {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(semconv.ATTR_GEN_AI_TOOL_DEFINITIONS);
        // The error's type is still there: what failed, not what it said.
        expect(failed.map((s) => s.attributes[semconv.ATTR_ERROR_TYPE]).sort()).toEqual(['Error', 'authentication', 'authentication']);
      }
    }
  });
});
