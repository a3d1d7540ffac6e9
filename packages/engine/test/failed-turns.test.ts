import type { Message } from '@parlance/protocol';
import { expect, it } from 'vitest';
import { withoutFailedTurns } from '../src/loop/failed-turns.ts';
import { setup } from './helpers.ts';

const user = (id: string, text = id): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const failed = (id: string, parts: Message['parts'] = []): Message => ({
  id,
  role: 'assistant',
  parts,
  error: { code: 'overloaded', message: 'Overloaded', retryable: true },
});

it('leaves out a failed empty answer and the user turn it failed to answer, keeping everything else', () => {
  const answered: Message = { id: 'a0', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] };
  const cut = failed('a2', [{ type: 'text', text: 'half an' }]);
  const messages = [user('u0'), answered, user('u1a'), user('u1b'), failed('a1'), user('u2'), cut, user('u3')];
  expect(withoutFailedTurns(messages).map((m) => m.id)).toEqual(['u0', 'a0', 'u2', 'a2', 'u3']);
  const clean = [user('u0'), answered];
  expect(withoutFailedTurns(clean)).toBe(clean);
});

it('after a failed turn, the model is sent the next message on its own, not merged into the failed one', async () => {
  const { engine, model } = setup([{ text: 'Hi again', usage: { inputTokens: 3, outputTokens: 2 } }]);
  const result = await engine.chat({ messages: [user('u1', 'fail please'), failed('a1'), user('u2', 'hello')] });
  expect(result.haltReason).toBe('completed');
  expect(model.requests[0]!.messages.map((m) => m.id)).toEqual(['u2']);
  // The thread keeps the failed turn.
  expect(result.thread.messages.map((m) => m.id).slice(0, 3)).toEqual(['u1', 'a1', 'u2']);
});

it('a thread sent again ending in its failed turn retries it: the failed answer is replaced, not kept', async () => {
  const { engine, model } = setup([{ text: 'Answered', usage: { inputTokens: 3, outputTokens: 1 } }]);
  const result = await engine.chat({ messages: [user('u1', 'try again'), failed('a1')] });
  expect(model.requests[0]!.messages.map((m) => m.id)).toEqual(['u1']);
  expect(result.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  expect(result.thread.messages[1]!.error).toBeUndefined();
});
