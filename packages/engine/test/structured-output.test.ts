import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { messageText } from '@parlance/protocol';
import { OUTPUT_TOOL_NAME, StructuredOutputError, collect } from '../src/index.ts';
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

  it('strict schemas: the null a strict schema makes the model send for an optional field validates as absent (issue 14.1)', async () => {
    const withNickname = z.object({ name: z.string(), nickname: z.string().optional() });
    const { engine, model } = setup([{ text: '{"name": "Ada", "nickname": null}' }], {}, 'openai_responses');
    const result = await engine.chat({ prompt: 'Who?', output: withNickname });
    expect(result.haltReason).toBe('completed');
    expect(result.output).toEqual({ name: 'Ada' });
    // The engine hands the dialect zod's open schema; the dialect makes it strict (see strict-schema.test.ts).
    expect(model.requests[0]!.output!.schema).toMatchObject({ properties: { nickname: { type: 'string' } }, required: ['name'] });
  });

  it('Anthropic with thinking: native output format instead of a forced tool, thinking kept (issue 14.6)', async () => {
    const { engine, model } = setup([{ text: '{"name": "Ada", "age": 36}' }], { thinking: { effort: 'low' } }, 'anthropic_messages');
    const result = await engine.chat({ prompt: 'Who?', output: person });
    expect(result.output).toEqual({ name: 'Ada', age: 36 });
    expect(model.requests[0]!.output).toMatchObject({ type: 'json', schema: { type: 'object' } });
    expect(model.requests[0]!.toolChoice).toBeUndefined();
    expect(model.requests[0]!.thinking).toEqual({ effort: 'low' });
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

  describe('generate()', () => {
    it('validates the answer once and returns it typed as response.output', async () => {
      const { engine, model } = setup([{ text: ['```json\n{"name": "Ada", ', '"age": 36}\n```'] }], {}, 'openai_responses');
      const response = await engine.generate({ prompt: 'Who?', output: person });
      const age: number = response.output!.age;
      expect(age).toBe(36);
      expect(response.output).toEqual({ name: 'Ada', age: 36 });
      expect(response.finishReason).toBe('stop');
      expect(model.requests[0]!.output).toMatchObject({ type: 'json', schema: { type: 'object', required: ['name', 'age'] } });
    });

    it('applies the schema: a Standard Schema transform shapes response.output', async () => {
      const { engine } = setup([{ text: '{"name": "ada", "age": 36}' }]);
      const upper = z.object({ name: z.string().transform((n) => n.toUpperCase()), age: z.number() });
      const response = await engine.generate({ prompt: 'Who?', output: upper });
      expect(response.output).toEqual({ name: 'ADA', age: 36 });
    });

    it('rejects an answer that is not the schema with invalid_response and its issues, without retrying', async () => {
      const { engine, model } = setup([{ text: '{"name": "Ada", "age": "old"}' }, { text: '{"name": "Ada", "age": 36}' }]);
      const error = await engine.generate({ prompt: 'Who?', output: person }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StructuredOutputError);
      const e = error as StructuredOutputError;
      expect(e).toMatchObject({ code: 'invalid_response', retryable: false });
      expect(e.issues).toHaveLength(1);
      expect(e.issues[0]!.path).toEqual(['age']);
      expect(e.issues[0]!.message).toMatch(/number/i);
      expect(e.message).toMatch(/age: .*number/i);
      // What the model said is kept on the error.
      expect(messageText(e.response.message)).toBe('{"name": "Ada", "age": "old"}');
      expect(model.requests).toHaveLength(1);
    });

    it('rejects an answer that is not JSON, and checks plain JSON Schema too', async () => {
      const notJson = setup([{ text: 'Ada, 36' }]).engine.generate({ prompt: 'Who?', output: person });
      await expect(notJson).rejects.toMatchObject({ code: 'invalid_response', issues: [{ message: expect.stringMatching(/not valid JSON/) }] });
      const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
      const { engine } = setup([{ text: '{"ok": "yes"}' }, { text: '{"ok": true}' }]);
      await expect(engine.generate({ prompt: 'x', output: schema })).rejects.toMatchObject({
        code: 'invalid_response',
        issues: [{ message: expect.stringMatching(/ok.*boolean/) }],
      });
      expect((await engine.generate({ prompt: 'x', output: schema })).output).toEqual({ ok: true });
    });

    it('returns a cut or failed response as is, without output and without throwing', async () => {
      const cut = await setup([{ text: '{"name": "Ada", "ag', finishReason: 'length' }]).engine.generate({ prompt: 'Who?', output: person });
      expect(cut.finishReason).toBe('length');
      expect(cut.output).toBeUndefined();
      const failed = await setup([{ text: '{"na', error: { code: 'overloaded', message: 'busy', afterEvents: 3 } }]).engine.generate({ prompt: 'Who?', output: person });
      expect(failed.finishReason).toBe('error');
      expect(failed.error?.code).toBe('overloaded');
      expect(failed.output).toBeUndefined();
    });

    it('without output, returns the response as before (no output key)', async () => {
      const response = await setup([{ text: 'hi' }]).engine.generate({ prompt: 'x' });
      expect('output' in response).toBe(false);
      expect(messageText(response.message)).toBe('hi');
    });
  });
});
