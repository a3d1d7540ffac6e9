/**
 * Responses state through the gateway: with a run store, `previous_response_id` and
 * `item_reference` (what the AI SDK's `.responses()` sends at its default `store: true`) name the
 * earlier turns, for the key that made them; without one, a 400 in OpenAI's format names the setting.
 */
import { DIALECT_IDS, getDialect, type DialectId } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createMemoryRunStore } from '../memory-run-store.ts';
import { target } from '../../test/gateway-calls.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';

function setup(upstream: DialectId, withStore = true) {
  const provider = mockProviderServer({
    dialect: upstream,
    script: (_request, call) => (call === 0 ? { reasoning: 'Plan.', text: 'Paris.', toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }] } : { text: `Turn ${call + 1}.` }),
  });
  const app = createGateway({
    routes: { m: target(upstream, provider) },
    authorize: staticKeys({ k1: { id: 'a' }, k2: { id: 'b' } }),
    ...(withStore ? { store: createMemoryRunStore() } : {}),
  });
  const client = (key = 'k1') => new OpenAI({ apiKey: key, baseURL: 'http://gw.test/v1', maxRetries: 0, fetch: async (url, init) => app.request(String(url), init as RequestInit) });
  /** The conversation the provider got on its last call, decoded in its own dialect. */
  const lastSent = () => {
    const last = provider.requests.at(-1)!;
    return getDialect(upstream).decodeRequest(last.body, { model: 'm', stream: true }).request.messages;
  };
  return { client, lastSent };
}

const tools = [{ type: 'function' as const, name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

describe.each(DIALECT_IDS)('Responses state with a run store, to a %s provider', (upstream) => {
  it.each([true, false])('previous_response_id continues the conversation (streamed %s)', async (stream) => {
    const { client, lastSent } = setup(upstream);
    const first = stream ? await client().responses.stream({ model: 'm', input: 'Where?', tools }).finalResponse() : await client().responses.create({ model: 'm', input: 'Where?', tools });
    const id = first.id;
    expect(id).toMatch(/^resp_/);
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'weather' });
    const callId = call?.type === 'function_call' ? call.call_id : '';
    const second = await client().responses.create({ model: 'm', previous_response_id: id, input: [{ type: 'function_call_output', call_id: callId, output: '18C' }], tools });
    expect(second.output_text).toBe('Turn 2.');
    const sent = lastSent();
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(sent[1]!.parts)).toContain('Paris.');
    expect(sent[1]!.parts.find((p) => p.type === 'tool-call')).toMatchObject({ name: 'weather', input: { city: 'Paris' } });
    expect(sent[2]!.parts[0]).toMatchObject({ type: 'tool-result', output: '18C' });
    // Another key cannot read it.
    await expect(client('k2').responses.create({ model: 'm', previous_response_id: id, input: 'And?' })).rejects.toMatchObject({ status: 404 });
  });

  it('item_reference names each output item of an earlier response', async () => {
    const { client, lastSent } = setup(upstream);
    const first = await client().responses.create({ model: 'm', input: 'Where?', tools });
    const ids = first.output.map((item) => item.id!);
    expect(new Set(ids).size).toBe(ids.length);
    const call = first.output.find((item) => item.type === 'function_call');
    const callId = call?.type === 'function_call' ? call.call_id : '';
    await client().responses.create({
      model: 'm',
      input: [{ role: 'user', content: 'Where?' }, ...ids.map((id) => ({ type: 'item_reference' as const, id })), { type: 'function_call_output', call_id: callId, output: '18C' }],
      tools,
    });
    const sent = lastSent();
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(sent[1]!.parts)).toContain('Paris.');
    expect(JSON.stringify(sent[1]!.parts)).toContain('Plan.');
    expect(sent[1]!.parts.find((p) => p.type === 'tool-call')).toMatchObject({ name: 'weather', input: { city: 'Paris' } });
    expect(sent[2]!.parts[0]).toMatchObject({ type: 'tool-result', output: '18C' });
    await expect(client().responses.create({ model: 'm', input: [{ type: 'item_reference', id: 'msg_unknown' }] })).rejects.toMatchObject({ status: 404 });
  });
});

describe('Responses state without a store', () => {
  it.each(['previous_response_id', 'item_reference'])('refuses %s with a 400 in OpenAI format that names the setting', async (form) => {
    const { client } = setup('openai_completions', false);
    const body = form === 'previous_response_id' ? { model: 'm', previous_response_id: 'resp_x', input: 'hi' } : { model: 'm', input: [{ type: 'item_reference' as const, id: 'msg_x' }] };
    const error = await client().responses.create(body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('`store`') });
  });

  it('keeps nothing for a caller that sent store: false', async () => {
    const { client } = setup('openai_completions');
    const first = await client().responses.create({ model: 'm', input: 'hi', store: false });
    await expect(client().responses.create({ model: 'm', previous_response_id: first.id, input: 'and?' })).rejects.toMatchObject({ status: 404 });
  });
});
