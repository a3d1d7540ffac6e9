/**
 * A cross-vendor handoff to every Chat Completions vendor in the catalog: a thread whose earlier
 * turn came from DeepSeek (`reasoning_content`) and OpenRouter (`reasoning_details`) goes to each
 * vendor with only the reasoning fields its API documents taking back; the rest is left out with a
 * warning (Groq answers 400 "property 'reasoning_content' is unsupported", Mistral 422
 * `extra_forbidden`, Cerebras 400).
 */
import type { Event, Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { alibaba, cerebras, deepseek, fireworks, groq, mistral, moonshot, openrouter, together, xai, zai, type Provider } from '../../src/providers/index.ts';

/** What each vendor's API documents taking back on an assistant message (the rule under test). */
const TAKES: [string, Provider, ('reasoning_content' | 'reasoning_details')[]][] = [
  ['DeepSeek', deepseek, ['reasoning_content']],
  ['Moonshot', moonshot, ['reasoning_content']],
  ['Z.ai', zai, ['reasoning_content']],
  ['OpenRouter', openrouter, ['reasoning_details']],
  ['Groq', groq, []],
  ['Mistral', mistral, []],
  ['Cerebras', cerebras, []],
  ['Together', together, []],
  ['Fireworks', fireworks, []],
  ['xAI', xai, []],
  ['Alibaba', alibaba, []],
];

const SSE = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

const thread: Message[] = [
  { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
  {
    id: 'a',
    role: 'assistant',
    parts: [
      { type: 'reasoning', text: 'I should call the tool.', providerState: { openai_completions: { field: 'reasoning_content' } } },
      { type: 'reasoning', text: '', providerState: { openai_completions: { reasoningDetails: [{ type: 'reasoning.text', text: 'Plan.', format: 'unknown' }] } } },
      { type: 'tool-call', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
    ],
  },
  { id: 't', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'call_1', name: 'weather', output: '18C' }] },
];

describe.each(TAKES)('a handoff to %s', (_name, provider, takes) => {
  it('sends back only the reasoning fields the vendor documents, and warns for the rest', async () => {
    let sent: { messages: Record<string, unknown>[] } | undefined;
    const model = provider.model('some-model', {
      apiKey: 'k',
      retry: false,
      fetch: async (_url, init) => {
        sent = JSON.parse(String(init?.body));
        return new Response(SSE, { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    const events: Event[] = [];
    for await (const event of model.stream({ messages: thread, tools: [{ name: 'weather', inputSchema: { type: 'object' } }] })) events.push(event);
    const assistant = sent!.messages.find((m) => m.role === 'assistant')!;
    expect('reasoning_content' in assistant).toBe(takes.includes('reasoning_content'));
    expect('reasoning_details' in assistant).toBe(takes.includes('reasoning_details'));
    if (takes.includes('reasoning_content')) expect(assistant.reasoning_content).toBe('I should call the tool.');
    const warnings = events.filter((e) => e.type === 'warning').map((e) => (e as { message: string }).message);
    for (const field of ['reasoning_content', 'reasoning_details'] as const) {
      expect(warnings.some((w) => w.includes(field))).toBe(!takes.includes(field));
    }
  });
});
