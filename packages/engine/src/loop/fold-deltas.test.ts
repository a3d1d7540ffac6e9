/**
 * The run folds a stream of deltas once per block, not once per delta (folding copies the message
 * and its parts), and the thread it reports is still the fold of every event it emitted, one by one.
 */
import * as protocol from '@parlance/protocol';
import type { Event, LanguageModel } from '@parlance/protocol';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createEngine } from '../engine.ts';
import { tool } from '../tools/tool.ts';

const folds = vi.hoisted(() => ({ count: 0 }));
vi.mock('@parlance/protocol', async (original) => {
  const actual = await original<typeof protocol>();
  return {
    ...actual,
    reduceEvents: (state: protocol.FoldState, event: Event) => {
      folds.count++;
      return actual.reduceEvents(state, event);
    },
  };
});

const DELTAS = 1000;
const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i} `);

/** One block of each kind streamed as DELTAS deltas, then (first step) a tool call whose input arrives in pieces. */
function model(): LanguageModel {
  let step = 0;
  return {
    provider: 'test',
    modelId: 'm',
    dialect: 'test',
    async *stream() {
      const first = step++ === 0;
      yield { type: 'message-start' };
      yield { type: 'reasoning-start', id: 'r' };
      for (const delta of words(DELTAS, 'think')) yield { type: 'reasoning-delta', id: 'r', delta };
      yield { type: 'reasoning-end', id: 'r' };
      yield { type: 'text-start', id: 't' };
      // Two text blocks interleaved for a while: each switch folds what the other held.
      yield { type: 'text-start', id: 't2' };
      for (const [i, delta] of words(DELTAS, 'w').entries()) yield { type: 'text-delta', id: i % 100 < 10 ? 't2' : 't', delta };
      yield { type: 'text-end', id: 't2' };
      yield { type: 'text-end', id: 't' };
      if (first) {
        yield { type: 'tool-call-start', id: 'c1', name: 'add' };
        for (const delta of ['{"a":', '1,', '"b"', ':2}']) yield { type: 'tool-call-delta', id: 'c1', delta };
        yield { type: 'tool-call-end', id: 'c1', input: { a: 1, b: 2 } };
      }
      yield { type: 'finish', finishReason: first ? 'tool-calls' : 'stop', usage: { inputTokens: 1, outputTokens: 2 } };
    },
  } as LanguageModel;
}

describe('deltas fold once per block', () => {
  it('folds a few times for thousands of deltas, and reports the thread folding every event gives', async () => {
    const add = tool({ name: 'add', description: 'Adds', input: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
    const engine = createEngine({ resolveModel: () => model(), tools: [add] });
    const events: Event[] = [];
    folds.count = 0;
    for await (const event of engine.streamChat({ prompt: 'Hi', model: 'm' })) events.push(event);
    const folded = folds.count;
    const finish = events.at(-1)!;
    expect(finish.type).toBe('chat-finish');
    const deltas = events.filter((e) => e.type.endsWith('-delta')).length;
    expect(deltas).toBe(4 * DELTAS + 4);
    // Every other event is folded once (and the finish's thread once more); deltas once per run of one block.
    expect(folded).toBeLessThan(events.length - deltas + 100);
    // The same thread as folding each event on its own.
    const thread = (finish as Extract<Event, { type: 'chat-finish' }>).thread!;
    const oneByOne = protocol.foldEvents(events.slice(0, -1), protocol.createFoldState(thread.messages.slice(0, 1)));
    expect(thread.messages).toEqual(oneByOne.messages);
    expect(thread.messages.find((m) => m.role === 'assistant')!.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'text', 'tool-call']);
  });
});
