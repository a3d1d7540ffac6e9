import type { Message } from '@parlance/protocol';
import { expect, it } from 'vitest';
import { findResult } from './find-result.ts';

const call = (id: string, name: string): Message['parts'][number] => ({ type: 'tool-call', id, name, input: {} });
const result = (id: string, output: string): Message['parts'][number] => ({ type: 'tool-result', toolCallId: id, name: 'f', output });

it("finds each round's own result when a provider reuses call ids across responses", () => {
  const messages: Message[] = [
    { id: 'a1', role: 'assistant', parts: [call('call_0', 'first')] },
    { id: 't1', role: 'tool', parts: [result('call_0', 'one')] },
    { id: 'a2', role: 'assistant', parts: [call('call_0', 'second')] },
  ];
  expect(findResult(messages, 'a1', 'call_0')).toMatchObject({ output: 'one' });
  // The second round has no result yet: the first round's must not show up for it.
  expect(findResult(messages, 'a2', 'call_0')).toBeUndefined();
  messages.push({ id: 't2', role: 'tool', parts: [result('call_0', 'two')] });
  expect(findResult(messages, 'a2', 'call_0')).toMatchObject({ output: 'two' });
});

it('finds a provider-executed result inside the assistant message itself', () => {
  const messages: Message[] = [{ id: 'a', role: 'assistant', parts: [call('ws_1', 'web_search'), { type: 'tool-result', toolCallId: 'ws_1', name: 'web_search', output: 'hits', providerExecuted: true }] }];
  expect(findResult(messages, 'a', 'ws_1')).toMatchObject({ output: 'hits' });
});
