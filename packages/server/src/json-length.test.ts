import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../dialects/test/conformance.ts';
import { jsonLength } from './json-length.ts';

const CHARS = ['a', 'Z', ' ', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', 'é', '中', '😀', '\ud800', '\udc00', '/', '<', '\u2028'];

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 7));
  const text = () => Array.from({ length: Math.floor(random() * 12) }, () => CHARS[Math.floor(random() * CHARS.length)]).join('');
  switch (pick) {
    case 0:
      return text();
    case 1:
      return [0, -0, 1.5, -42, 1e21, 1e-7, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, 123456789][Math.floor(random() * 10)];
    case 2:
      return random() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.1 ? undefined : randomValue(random, depth + 1)));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 5); i > 0; i--) out[text()] = random() < 0.1 ? undefined : randomValue(random, depth + 1);
      return out;
    }
  }
}

describe('jsonLength', () => {
  it('is the length of JSON.stringify for events and for random JSON values with every kind of escape', () => {
    const events = [
      { type: 'text-delta', id: 't0', delta: 'Hello "world"\n' },
      { type: 'tool-call-end', id: 'c', input: { city: 'Zürich', days: [1, 2, 3] }, signature: 'p1.k.x' },
      { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 5 }, error: undefined },
    ];
    for (const event of events) expect(jsonLength(event)).toBe(JSON.stringify(event).length);
    const random = seededRandom(16);
    for (let i = 0; i < 3000; i++) {
      const value = randomValue(random, 0);
      expect(jsonLength(value), JSON.stringify(value)).toBe(JSON.stringify(value).length);
    }
  });
});
