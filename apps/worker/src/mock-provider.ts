/**
 * The model offered when no provider key is set: a provider that speaks the real
 * Anthropic Messages wire format (https://docs.anthropic.com/en/api/messages-streaming),
 * answered by the testing kit's mock provider server through an injected fetch. The
 * whole path runs (encode, HTTP, SSE decode, engine loop) with no key and no network.
 */
import { defineProvider, type Provider } from '@parlance/engine';
import { mockProviderServer, type RecordedRequest, type ScriptedTurn } from '@parlance/testing';

export const MOCK_MODEL_ID = 'mock:parlance-mock';

/** Never resolved: every request goes to the in-process mock through `fetch` below. */
const MOCK_BASE_URL = 'https://mock.parlance.invalid';

/** The text of the last user message in an Anthropic Messages request body. */
function lastUserText(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role?: string; content?: unknown }[] } | undefined)?.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const content = last?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: unknown }) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

function reply(request: RecordedRequest, delayMs: number): ScriptedTurn {
  const said = lastUserText(request).replace(/\s+/g, ' ').trim().slice(0, 200);
  return {
    reasoning: 'No provider key is set, so the mock model answers.',
    text:
      `You said: "${said}". This is Parlance's mock model, streamed in the Anthropic Messages wire format from inside the Worker. ` +
      'Set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY as a secret to talk to a real model.',
    usage: { inputTokens: 12, outputTokens: 40 },
    delayMs,
  };
}

export interface MockProviderOptions {
  /** Pause before each streamed event, so the reply visibly streams (default 20 ms). */
  delayMs?: number;
}

/**
 * A fresh mock provider. Build one per run: the mock records every request it gets,
 * and a Worker isolate lives for many requests.
 */
export function mockProvider(options: MockProviderOptions = {}): Provider {
  const delayMs = options.delayMs ?? 20;
  const upstream = mockProviderServer({ dialect: 'anthropic_messages', script: (request) => reply(request, delayMs) });
  return defineProvider(
    {
      id: 'mock',
      name: 'Mock provider',
      baseURL: MOCK_BASE_URL,
      auth: 'none',
      dialect: 'anthropic_messages',
      models: { 'parlance-mock': { contextWindow: 200_000, maxOutputTokens: 4096, input: ['text'] } },
    },
    { fetch: async (input, init) => upstream(new Request(input, init)) },
  );
}
