/**
 * Settings a model rejects are left out before the request leaves, each reported as a `warning`
 * event (right after `message-start`) and in `Response.warnings` (issue 14, item 8), driven by the
 * catalog's `sampling` rules; the dialect's own warnings (tool_choice without tools, thinking
 * turned off) arrive the same way, and the headers a body needs (Anthropic's compaction beta) are sent.
 */
import { collectResponse, type Message, type ModelRequest } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getModelInfo } from '../../src/catalog/catalog.ts';
import { adjustRequest, anthropic, openai, type Provider } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, serverPerTest } from './server.ts';

const KEY = 'test-key-0123456789abcdef';
const serve = serverPerTest();

async function run(provider: Provider, modelId: string, recording: ReturnType<typeof fixture>, request: Omit<ModelRequest, 'model'>) {
  const server = await serve((_req, res) => replay(res, recording));
  const events = await drain(provider.model(modelId, { baseURL: server.url, apiKey: KEY }).stream(request));
  return { events, response: await collectResponse(events), request: server.requests[0]! };
}

describe('model-dependent settings (catalog sampling rules)', () => {
  it('Claude Sonnet 4.5 gets temperature or top_p, not both: top_p is left out with a warning', async () => {
    const { events, response, request } = await run(anthropic, 'claude-sonnet-4-5', fixture('anthropic_messages', 'omni__anthropic_text.sse'), {
      messages: ask('Hi'),
      temperature: 0.3,
      topP: 0.9,
    });
    expect(request.body.temperature).toBe(0.3);
    expect(request.body).not.toHaveProperty('top_p');
    expect(events[0]!.type).toBe('message-start');
    expect(events[1]).toMatchObject({ type: 'warning', setting: 'topP' });
    expect(response.warnings).toEqual([expect.stringContaining('top_p was not sent')]);
  });

  it('an older Claude takes both; an unknown model is left alone', () => {
    const both = { messages: ask('Hi'), temperature: 0.3, topP: 0.9 };
    const warnings: string[] = [];
    const onWarning = (w: { message: string }) => warnings.push(w.message);
    expect(adjustRequest(both, getModelInfo('anthropic', 'claude-sonnet-4-0'), { onWarning })).toMatchObject({ temperature: 0.3, topP: 0.9 });
    expect(adjustRequest(both, getModelInfo('anthropic', 'claude-next-unknown'), { onWarning })).toMatchObject({ temperature: 0.3, topP: 0.9 });
    expect(warnings).toEqual([]);
  });

  it('gpt-5 with a reasoning effort: temperature and top_p are left out, one warning each', async () => {
    const { response, request } = await run(openai, 'gpt-5', fixture('openai_responses', 'pydantic-ai__test_deepseek_responses_text_stream_.i0.sse'), {
      messages: ask('Hi'),
      temperature: 0.3,
      topP: 0.9,
      thinking: { effort: 'low' },
    });
    expect(request.body).not.toHaveProperty('temperature');
    expect(request.body).not.toHaveProperty('top_p');
    expect(request.body.reasoning).toMatchObject({ effort: 'low' });
    expect(response.warnings).toHaveLength(2);
  });

  it('gpt-5.1 reasons only when asked (default effort none): temperature goes out without thinking, not with it', () => {
    const info = getModelInfo('openai', 'gpt-5.1');
    expect(adjustRequest({ messages: ask('Hi'), temperature: 0.3 }, info).temperature).toBe(0.3);
    expect(adjustRequest({ messages: ask('Hi'), temperature: 0.3, thinking: { effort: 'high' } }, info)).not.toHaveProperty('temperature');
  });

  it('tool_choice without tools is not sent, and says so', async () => {
    const { response, request } = await run(anthropic, 'claude-sonnet-4-5', fixture('anthropic_messages', 'omni__anthropic_text.sse'), {
      messages: ask('Hi'),
      toolChoice: 'required',
    });
    expect(request.body).not.toHaveProperty('tool_choice');
    expect(response.warnings).toEqual([expect.stringContaining('tool_choice was not sent')]);
  });
});

describe('headers a body needs', () => {
  it('a round-tripped Anthropic compaction block goes out with the compaction beta header', async () => {
    const messages: Message[] = [
      ...ask('Continue'),
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'reasoning', text: 'Summary of the earlier turns.', providerState: { anthropic_messages: { type: 'compaction' } } }],
      },
      ...ask('And now?'),
    ];
    const { request } = await run(anthropic, 'claude-sonnet-4-5', fixture('anthropic_messages', 'omni__anthropic_text.sse'), { messages });
    expect(JSON.stringify(request.body.messages)).toContain('"type":"compaction"');
    expect(request.headers['anthropic-beta']).toBe('compact-2026-01-12');
    const plain = await run(anthropic, 'claude-sonnet-4-5', fixture('anthropic_messages', 'omni__anthropic_text.sse'), { messages: ask('Hi') });
    expect(plain.request.headers['anthropic-beta']).toBeUndefined();
  });
});
