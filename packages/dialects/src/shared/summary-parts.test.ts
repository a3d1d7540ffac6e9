import type { Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../test/handoff-rules.ts';
import { modelFor } from '../../test/handoff-thread.ts';
import { getDialect } from '../registry.ts';
import { DIALECT_IDS } from '../types.ts';

const thread: Message[] = [
  { id: 's1', role: 'system', parts: [{ type: 'summary', text: 'SUMMARY: the user is planning a trip to Lisbon.', through: 'm9' }] },
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'And the weather there?' }, { type: 'summary', text: 'INLINE-SUMMARY', through: 'm3' }] },
];

describe.each(DIALECT_IDS)('%s sends summary parts as text', (dialect) => {
  it('in the system prompt and in a user message, within the published schema', () => {
    const body = getDialect(dialect).encodeRequest({ model: modelFor(dialect), system: 'Be brief.', messages: thread });
    const wire = JSON.stringify(body);
    expect(wire).toContain('SUMMARY: the user is planning a trip to Lisbon.');
    expect(wire).toContain('INLINE-SUMMARY');
    expect(wire).not.toContain('"summary"');
    expect(wire).not.toContain('"through"');
    expect(schemaErrors(dialect, body)).toBe('');
  });
});
