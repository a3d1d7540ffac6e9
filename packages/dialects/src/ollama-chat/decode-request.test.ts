import { ParlanceError, type Part } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { decodeOllamaRequest } from './decode-request.ts';

const call = (name: string, args: object, id?: string) => ({ ...(id ? { id } : {}), function: { name, arguments: args } });

/** Two parallel calls, then their results in the forms clients send (Ollama documents `tool_name` as optional). */
const RESULT_FORMS = [
  { client: 'the Ollama SDK (tool_name)', ids: false, results: [{ tool_name: 'weather' }, { tool_name: 'time' }] },
  { client: 'an older client (name)', ids: false, results: [{ name: 'weather' }, { name: 'time' }] },
  { client: 'the AI SDK provider (tool_call_id, ids on calls)', ids: true, results: [{ tool_call_id: 'c-w' }, { tool_call_id: 'c-t' }] },
  { client: 'LangChain ChatOllama (neither: by position)', ids: false, results: [{}, {}] },
  { client: 'results out of order, by name', ids: false, results: [{ tool_name: 'time' }, { tool_name: 'weather' }], swapped: true },
  { client: 'results out of order, by id', ids: true, results: [{ tool_call_id: 'c-t' }, { tool_call_id: 'c-w' }], swapped: true },
];

describe('decodeOllamaRequest pairs tool results with their calls', () => {
  it.each(RESULT_FORMS)('$client', ({ ids, results, swapped }) => {
    const outputs = swapped ? ['14:05', '18C'] : ['18C', '14:05'];
    const { request } = decodeOllamaRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'weather and time?' },
        { role: 'assistant', content: '', tool_calls: [call('weather', { city: 'Paris' }, ids ? 'c-w' : undefined), call('time', { zone: 'CET' }, ids ? 'c-t' : undefined)] },
        ...results.map((form, i) => ({ role: 'tool', content: outputs[i], ...form })),
      ],
    });
    const parts = request.messages.flatMap((m) => m.parts);
    const calls = parts.filter((p): p is Extract<Part, { type: 'tool-call' }> => p.type === 'tool-call');
    const answers = parts.filter((p): p is Extract<Part, { type: 'tool-result' }> => p.type === 'tool-result');
    const answerOf = (name: string) => answers.find((a) => a.toolCallId === calls.find((c) => c.name === name)!.id);
    expect(answerOf('weather')).toMatchObject({ name: 'weather', output: '18C' });
    expect(answerOf('time')).toMatchObject({ name: 'time', output: '14:05' });
    if (ids) expect(calls.map((c) => c.id)).toEqual(['c-w', 'c-t']);
  });

  it('refuses a result that answers no call, rather than inventing a pairing', () => {
    const decode = () =>
      decodeOllamaRequest({
        model: 'm',
        messages: [
          { role: 'assistant', content: '', tool_calls: [call('weather', {})] },
          { role: 'tool', content: 'a', tool_name: 'weather' },
          { role: 'tool', content: 'b', tool_name: 'weather' },
        ],
      });
    expect(decode).toThrow(ParlanceError);
    expect(decode).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
