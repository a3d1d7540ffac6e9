import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Allow, parse as parsePartial } from 'partial-json';
import { createPartialObjectParser } from '../src/output/structured-output.ts';
import { collect } from '../src/index.ts';
import { drain, ofType, setup } from './helpers.ts';

// Counts every partial-json parse the engine makes (the engine's parser calls it by default).
const counter = vi.hoisted(() => ({ parses: 0 }));
vi.mock('partial-json', async (importOriginal) => {
  const original = await importOriginal<typeof import('partial-json')>();
  return { ...original, parse: (...args: Parameters<typeof original.parse>) => (counter.parses++, original.parse(...args)) };
});

/** A big JSON answer cut into `count` small deltas. */
function bigAnswer(count: number) {
  const object = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) };
  const json = JSON.stringify(object);
  const size = Math.floor(json.length / count);
  // Exactly `count` deltas, the last one taking the rest.
  const deltas = Array.from({ length: count }, (_, i) => json.slice(i * size, i === count - 1 ? undefined : (i + 1) * size));
  return { object, json, deltas };
}

describe('partial objects', () => {
  it('parses a 20,000-delta answer O(log n) times and O(n) characters in all, ending on the exact object', () => {
    const { object, json, deltas } = bigAnswer(20_000);
    expect(deltas).toHaveLength(20_000);
    expect(deltas.join('')).toBe(json);
    const lengths: number[] = [];
    const parser = createPartialObjectParser({ parse: (text) => (lengths.push(text.length), parsePartial(text, Allow.ALL)) });
    let last: unknown;
    for (const delta of deltas) {
      const r = parser.push(delta);
      if (r.changed) last = r.value;
    }
    const end = parser.flush();
    if (end.changed) last = end.value;
    expect(last).toEqual(object);
    expect(parser.parses).toBe(lengths.length);
    // ~10 parses to reach 640 characters, then one per 10% of growth: far fewer than one per delta.
    expect(lengths.length).toBeLessThan(10 + Math.log(json.length / 640) / Math.log(1.1) + 3);
    expect(lengths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(12 * json.length);
    // A second flush has nothing new to parse.
    expect(parser.flush()).toEqual({ changed: false });
    expect(parser.parses).toBe(lengths.length);
  });

  it('parses the first delta at once, then waits for the text to grow by max(64, 10%)', () => {
    const seen: string[] = [];
    const parser = createPartialObjectParser({ parse: (text) => (seen.push(text), text) });
    expect(parser.push('{"a"')).toEqual({ changed: true, value: '{"a"' });
    parser.push('x'.repeat(63));
    expect(seen).toHaveLength(1);
    parser.push('x');
    expect(seen).toHaveLength(2);
    parser.push('x'.repeat(1000));
    expect(seen).toHaveLength(3);
    // Now at 1068 characters: the next parse needs 107 more.
    parser.push('x'.repeat(106));
    expect(seen).toHaveLength(3);
    parser.push('x');
    expect(seen).toHaveLength(4);
  });

  it('a chat streaming a big object in 20,000 deltas parses it far fewer than 20,000 times', async () => {
    const { object, deltas } = bigAnswer(20_000);
    const schema = z.object({ items: z.array(z.object({ id: z.number(), name: z.string(), tags: z.array(z.string()) })) });
    const { engine } = setup([{ text: deltas }], {}, 'openai_responses');
    counter.parses = 0;
    const events = await drain(engine.streamChat({ prompt: 'List', output: schema }));
    expect(ofType(events, 'text-delta')).toHaveLength(20_000);
    expect(counter.parses).toBeGreaterThan(1);
    expect(counter.parses).toBeLessThan(200);
    const partials = ofType(events, 'object-delta');
    expect(partials.length).toBeLessThanOrEqual(counter.parses + 1);
    expect(partials.at(-1)!.object).toEqual(object);
    expect((await collect(events)).output).toEqual(object);
  });
});

