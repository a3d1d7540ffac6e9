import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { messageText } from '@parlance/protocol';
import { OUTPUT_TOOL_NAME, collect } from '../src/index.ts';
import { drain, ofType, setup } from './helpers.ts';

const person = z.object({ name: z.string(), age: z.number() });

describe('structured output', () => {
  it('native mode: a failing first attempt is repaired by the retry; the result is typed', async () => {
    const { engine, model } = setup(
      [{ text: ['{"name": "Ad', 'a", "age": "old"}'] }, { text: ['{"name": "Ada", ', '"age": 36}'] }],
      {},
      'openai_responses',
    );
    const events = await drain(engine.streamChat({ prompt: 'Who?', output: person }));
    const result = await collect<z.infer<typeof person>>(events);
    expect(result.haltReason).toBe('completed');
    const age: number = result.output!.age;
    expect(age).toBe(36);
    expect(result.output).toEqual({ name: 'Ada', age: 36 });
    expect(model.requests[0]!.output).toMatchObject({ type: 'json', schema: { type: 'object', required: ['name', 'age'] } });
    // The validation problem goes back to the model after its failed answer.
    const retry = model.requests[1]!.messages;
    expect(retry.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messageText(retry[2]!)).toMatch(/age: .*number/i);
    // Partial objects stream as the JSON arrives; the last one is the validated object.
    const deltas = ofType(events, 'object-delta').map((e) => e.object);
    expect(deltas[0]).toEqual({ name: 'Ad' });
    expect(deltas.at(-1)).toEqual({ name: 'Ada', age: 36 });
    expect(await engine.chat({ prompt: 'Who?', output: person })).toMatchObject({ output: { name: 'Ada', age: 36 } });
  });

  it('tool mode (Anthropic): a forced tool carries the object; its validation error is the tool result', async () => {
    const { engine, model } = setup(
      [
        { toolCalls: [{ name: OUTPUT_TOOL_NAME, input: { name: 'Ada' } }] },
        { toolCalls: [{ name: OUTPUT_TOOL_NAME, input: { name: 'Ada', age: 36 } }] },
      ],
      {},
      'anthropic_messages',
    );
    const result = await engine.chat({ prompt: 'Who?', output: person });
    expect(result.haltReason).toBe('completed');
    expect(result.output).toEqual({ name: 'Ada', age: 36 });
    expect(model.requests[0]!.toolChoice).toEqual({ type: 'tool', name: OUTPUT_TOOL_NAME });
    expect(model.requests[0]!.output).toBeUndefined();
    const feedback = model.requests[1]!.messages.at(-1)!.parts[0];
    expect(feedback).toMatchObject({ type: 'tool-result', isError: true, output: expect.stringContaining('age') });
    // Every output call has its result, so the thread can be sent again as is.
    expect(result.thread.messages.at(-1)!.role).toBe('tool');
  });

  it('does not retry when the answer was cut by the length limit', async () => {
    const { engine, model } = setup([{ text: '{"name": "Ada", "ag', finishReason: 'length' }, { text: '{}' }]);
    const result = await engine.chat({ prompt: 'Who?', output: person });
    expect(result.haltReason).toBe('length');
    expect(result.output).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it('gives up with an invalid_response error after maxRetries', async () => {
    const { engine, model } = setup([{ text: 'not json at all' }]);
    const result = await engine.chat({ prompt: 'Who?', output: person, maxRetries: 1 });
    expect(result.haltReason).toBe('error');
    expect(result.error?.code).toBe('invalid_response');
    expect(model.requests).toHaveLength(2);
  });

  it('accepts a plain JSON Schema and code-fenced JSON', async () => {
    const { engine } = setup([{ text: '```json\n{"ok": true}\n```' }]);
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const result = await engine.chat({ prompt: 'x', output: schema });
    expect(result.output).toEqual({ ok: true });
  });
});
