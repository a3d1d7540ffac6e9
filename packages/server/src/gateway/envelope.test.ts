/**
 * The reasoning-state envelope: what a caller of another dialect holds as its signature.
 * Sealed state opens to exactly what was sealed; anything else a caller sends (a real
 * signature, garbage, an oversized or malformed envelope) is left alone, never a crash.
 */
import type { Event, Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createSealer, open, openEnvelopes, seal } from './envelope.ts';

const ANTHROPIC_STATE = { anthropic_messages: { signature: 'EqQBCkgIBxAB/+=' } };

describe('the envelope', () => {
  it('opens to what was sealed, unicode included', () => {
    const state = { providerState: { openai_responses: { itemId: 'rs_1', encryptedContent: 'gAAA€😀' } }, signature: 'gAAA€😀' };
    const token = seal(state);
    expect(token).toMatch(/^parlance\.1\.[A-Za-z0-9_-]+$/);
    expect(open(token)).toEqual(state);
  });

  it.each([
    ['a provider signature', 'EqQBCkgIBxAB'],
    ['the prefix alone', 'parlance.1.'],
    ['not base64', 'parlance.1.%%%'],
    ['not JSON', `parlance.1.${btoa('nope')}`],
    ['JSON without state', `parlance.1.${btoa(JSON.stringify({ signature: 'x' }))}`],
    ['an array as state', `parlance.1.${btoa(JSON.stringify({ providerState: [] }))}`],
    ['oversized', `parlance.1.${'A'.repeat(600 * 1024)}`],
    ['a number', 42],
  ])('ignores %s', (_name, value) => {
    expect(open(value)).toBeUndefined();
  });
});

describe('createSealer', () => {
  it('seals foreign reasoning state for the caller, and leaves the caller dialect own state alone', () => {
    const foreign = createSealer('openai_completions');
    const [end] = [...foreign.push({ type: 'reasoning-end', id: 'r', signature: 'sig', providerState: ANTHROPIC_STATE }), ...foreign.flush()];
    expect(end).toMatchObject({ type: 'reasoning-end', id: 'r' });
    expect(end).not.toHaveProperty('providerState');
    expect(open((end as { signature: string }).signature)).toEqual({ providerState: ANTHROPIC_STATE, signature: 'sig' });
    const own = createSealer('anthropic_messages');
    const event: Event = { type: 'reasoning-end', id: 'r', signature: 'sig', providerState: ANTHROPIC_STATE };
    expect([...own.push(event), ...own.flush()]).toEqual([event]);
  });

  it('puts a signed first tool call in the envelope of the reasoning before it, or of an added empty reasoning block', () => {
    const callState = { google_gemini: { thoughtSignature: 'CiQB' } };
    const sealer = createSealer('anthropic_messages');
    const events = [
      ...sealer.push({ type: 'reasoning-end', id: 'r' }),
      ...sealer.push({ type: 'tool-call-start', id: 'c1', name: 'f', providerState: callState }),
      ...sealer.push({ type: 'tool-call-start', id: 'c2', name: 'g' }),
      ...sealer.flush(),
    ];
    expect(events.map((e) => e.type)).toEqual(['reasoning-end', 'tool-call-start', 'tool-call-start']);
    expect(open((events[0] as { signature: string }).signature)).toEqual({ providerState: {}, firstCall: callState });
    expect(events[1]).not.toHaveProperty('providerState');
    const bare = createSealer('openai_responses');
    const added = [...bare.push({ type: 'tool-call-start', id: 'c1', name: 'f', providerState: callState }), ...bare.flush()];
    expect(added.map((e) => e.type)).toEqual(['reasoning-start', 'reasoning-end', 'tool-call-start']);
  });
});

describe('openEnvelopes', () => {
  it('gives the reasoning its provider state back, and the first call after it its own', () => {
    const callState = { google_gemini: { thoughtSignature: 'CiQB' } };
    const token = seal({ providerState: ANTHROPIC_STATE, signature: 'sig', firstCall: callState });
    const messages: Message[] = [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi', providerState: { openai_responses: { encryptedContent: token } } }] },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Think.', signature: token, providerState: { openai_responses: { itemId: 'rs', encryptedContent: token } } },
          { type: 'tool-call', id: 'c1', name: 'f', input: {} },
          { type: 'tool-call', id: 'c2', name: 'g', input: {} },
        ],
      },
    ];
    const [user, assistant] = openEnvelopes(messages);
    expect(user).toBe(messages[0]); // envelopes only open in assistant turns
    expect(assistant!.parts).toEqual([
      { type: 'reasoning', text: 'Think.', signature: 'sig', providerState: ANTHROPIC_STATE },
      { type: 'tool-call', id: 'c1', name: 'f', input: {}, providerState: callState },
      { type: 'tool-call', id: 'c2', name: 'g', input: {} },
    ]);
    expect(messages[1]!.parts[0]).toMatchObject({ signature: token }); // the input is not mutated
  });

  it('moves an envelope found on a function call (where a Gemini caller puts it) to the reasoning before it', () => {
    const token = seal({ providerState: ANTHROPIC_STATE, signature: 'sig' });
    const [assistant] = openEnvelopes([
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Think.', providerState: { google_gemini: {} } },
          { type: 'tool-call', id: 'c1', name: 'f', input: {}, providerState: { google_gemini: { thoughtSignature: token } } },
        ],
      },
    ]);
    expect(assistant!.parts).toEqual([
      { type: 'reasoning', text: 'Think.', signature: 'sig', providerState: ANTHROPIC_STATE },
      { type: 'tool-call', id: 'c1', name: 'f', input: {} },
    ]);
  });

  it('opens an envelope a caller kept on a text part with no thoughts before it, into a reasoning part of its own', () => {
    const token = seal({ providerState: ANTHROPIC_STATE, signature: 'EqQBCkgIBxAB/+=' });
    const [message] = openEnvelopes([
      { id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'Three.', providerState: { google_gemini: { thoughtSignature: token } } }] },
    ]);
    expect(message!.parts).toEqual([
      { type: 'reasoning', text: '', providerState: ANTHROPIC_STATE, signature: 'EqQBCkgIBxAB/+=' },
      { type: 'text', text: 'Three.' },
    ]);
  });
});
