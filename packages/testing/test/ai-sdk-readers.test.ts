/**
 * The AI SDK's providers (`ai@6` with `@ai-sdk/anthropic`, `@ai-sdk/openai` for Responses and
 * Chat Completions, `@ai-sdk/google`) as a second family of independent readers of the mock
 * provider: they validate every frame against their own schemas, so a frame missing a required
 * field shows up as a validation error instead of the scripted answer (issue #14: Anthropic's
 * `message_start.usage`). Streamed through `streamText`, every scenario but Ollama's (the AI SDK
 * has no first-party Ollama provider).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import type { DialectId } from '@parlance/dialects';
import { jsonSchema, type LanguageModel, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveMockProvider, type MockProviderServer } from '../src/mock-server/serve.ts';
import { SCENARIO_NAMES, SCENARIOS, USAGE, type ScenarioName } from './scenarios.ts';

// Real HTTP and real SDKs on a shared 2-core machine: generous per-test time, never a timing assertion.
vi.setConfig({ testTimeout: 30_000 });

const DIALECTS = ['anthropic_messages', 'openai_responses', 'openai_completions', 'google_gemini'] as const satisfies readonly DialectId[];
const servers = new Map<DialectId, MockProviderServer>();

beforeAll(async () => {
  for (const dialect of DIALECTS) {
    servers.set(dialect, await serveMockProvider({ dialect, script: (request) => SCENARIOS[SCENARIO_NAMES[Number(/scenario-(\d+)/.exec(request.model ?? '')?.[1] ?? 0)]!] }));
  }
});

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.close()));
});

function modelFor(dialect: DialectId, scenario: ScenarioName): LanguageModel {
  const url = servers.get(dialect)!.url;
  const id = `scenario-${SCENARIO_NAMES.indexOf(scenario)}`;
  switch (dialect) {
    case 'anthropic_messages':
      return createAnthropic({ apiKey: 'k', baseURL: `${url}/v1` })(id);
    case 'openai_responses':
      return createOpenAI({ apiKey: 'k', baseURL: `${url}/v1` }).responses(id);
    case 'openai_completions':
      return createOpenAI({ apiKey: 'k', baseURL: `${url}/v1` }).chat(id);
    default:
      return createGoogleGenerativeAI({ apiKey: 'k', baseURL: `${url}/v1beta` })(id);
  }
}

const TOOLS = {
  weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }),
  time: tool({ inputSchema: jsonSchema<{ zone: string; format?: string }>({ type: 'object', properties: { zone: { type: 'string' }, format: { type: 'string' } }, required: ['zone'] }) }),
};

interface Read {
  text: string;
  reasoning: string;
  calls: { name: string; input: unknown }[];
  finish?: string;
  usage?: { inputTokens: number | undefined; outputTokens: number | undefined };
  errors: { message: string; statusCode?: number }[];
}

async function read(dialect: DialectId, scenario: ScenarioName): Promise<Read> {
  const out: Read = { text: '', reasoning: '', calls: [], errors: [] };
  // Errors are read from the stream's error parts; the default handler would also log them. The
  // scenario ids are no real model, so the output limit is stated, as a caller must for a model the
  // SDK does not know (otherwise @ai-sdk/anthropic picks 4096 and logs an "AI SDK Warning" per call).
  const result = streamText({ model: modelFor(dialect, scenario), prompt: 'hi', tools: TOOLS, maxOutputTokens: 1024, maxRetries: 0, onError: () => {} });
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') out.text += part.text;
    else if (part.type === 'reasoning-delta') out.reasoning += part.text;
    else if (part.type === 'tool-call') out.calls.push({ name: part.toolName, input: part.input });
    else if (part.type === 'finish') {
      out.finish = part.finishReason;
      out.usage = { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens };
    } else if (part.type === 'error') {
      const error = part.error as { message?: string; statusCode?: number };
      out.errors.push({ message: String(error.message ?? part.error), ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }) });
    }
  }
  return out;
}

describe.each(DIALECTS)('the AI SDK reads every %s mock scenario', (dialect) => {
  it.each(SCENARIO_NAMES)('%s', async (scenario) => {
    const seen = await read(dialect, scenario);
    const failed = scenario === 'http 429' || scenario.startsWith('mid-stream');
    if (!failed) expect(seen.errors, JSON.stringify(seen.errors)).toEqual([]);
    switch (scenario) {
      case 'text':
        expect(seen).toMatchObject({ text: 'Hello from the mock provider.', finish: 'stop', usage: { inputTokens: USAGE.inputTokens, outputTokens: USAGE.outputTokens } });
        return;
      case 'reasoning':
        expect(seen.text).toBe('Hi!');
        // OpenAI's Chat Completions API sends no reasoning text (`reasoning_content` is DeepSeek's), so its AI SDK reader has none.
        expect(seen.reasoning).toBe(dialect === 'openai_completions' ? '' : 'The user greets me; answer briefly.');
        return;
      case 'parallel tools':
        expect(seen.calls).toEqual([
          { name: 'weather', input: { city: 'Paris' } },
          { name: 'time', input: { zone: 'Europe/Paris', format: '24h' } },
        ]);
        expect(seen.finish).toBe('tool-calls');
        return;
      case 'length stop':
        expect(seen).toMatchObject({ text: 'This answer is cut', finish: 'length' });
        return;
      case 'no usage':
        expect(seen.text).toBe('No counts reported.');
        return;
      case 'http 429':
        expect(seen.errors[0]).toMatchObject({ statusCode: 429, message: expect.stringContaining('Rate limit reached') });
        return;
      default:
        // The scripted failure, not a schema complaint about the frames before it.
        expect(seen.text).toBe('Partial answer ');
        expect(seen.errors.map((e) => e.message).join(' ')).toMatch(/overloaded/i);
        expect(seen.errors.map((e) => e.message).join(' ')).not.toMatch(/validation|Type validation/i);
    }
  });
});
