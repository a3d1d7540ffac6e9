import type { Message } from '@parlance/protocol';
import { expect, it } from 'vitest';
import { MISSING_RESULT, unresolvedCalls, withMissingResults } from '../src/loop/pending.ts';

const call = (id: string, name = 'f'): Message['parts'][number] => ({ type: 'tool-call', id, name, input: {} });
const result = (id: string, name = 'f'): Message['parts'][number] => ({ type: 'tool-result', toolCallId: id, name, output: 'ok' });

it('pairs results per round when a provider reuses call ids across responses (Gemini, Ollama)', () => {
  const messages: Message[] = [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] },
    { id: 'a1', role: 'assistant', parts: [call('call_0', 'first')] },
    { id: 't1', role: 'tool', parts: [result('call_0', 'first')] },
    { id: 'a2', role: 'assistant', parts: [call('call_0', 'second')] },
  ];
  // The second round's call_0 is still owed, though an earlier call_0 has a result.
  expect(unresolvedCalls(messages).map((c) => c.name)).toEqual(['second']);
  const sent = withMissingResults([...messages, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'never mind' }] }]);
  expect(sent.map((m) => m.id)).toEqual(['u1', 'a1', 't1', 'a2', 'a2-missing-results', 'u2']);
  expect(sent[4]!.parts).toEqual([{ type: 'tool-result', toolCallId: 'call_0', name: 'second', output: MISSING_RESULT, isError: true }]);
});

it('leaves answered calls alone and completes a partly answered tool message', () => {
  const messages: Message[] = [
    { id: 'a1', role: 'assistant', parts: [call('c1'), call('c2')] },
    { id: 't1', role: 'tool', parts: [result('c1')] },
    { id: 'u', role: 'user', parts: [{ type: 'text', text: 'next' }] },
  ];
  const sent = withMissingResults(messages);
  expect(sent).toHaveLength(3);
  expect(sent[1]!.parts.map((p) => (p.type === 'tool-result' ? [p.toolCallId, p.isError ?? false] : p.type))).toEqual([
    ['c1', false],
    ['c2', true],
  ]);
});
