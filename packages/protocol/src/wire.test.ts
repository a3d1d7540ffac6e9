import { expect, it } from 'vitest';
import { DELTA_ID_EVERY, formatEventId, formatSseFrame, frameEventId, parseEventId, sendsEventId } from './wire.ts';

it('formats one event per SSE frame with a resumable id', () => {
  const frame = formatSseFrame({ type: 'text-delta', id: 't', delta: 'a\nb' }, formatEventId('run_1', 7));
  expect(frame).toBe('id: run_1:7\ndata: {"type":"text-delta","id":"t","delta":"a\\nb"}\n\n');
  expect(parseEventId('run_1:7')).toEqual({ runId: 'run_1', sequence: 7 });
  expect(parseEventId('garbage')).toBeUndefined();
  expect(parseEventId('run:-1')).toBeUndefined();
  // Strict digits: Number() would read these as 0 or 3.
  for (const id of ['run:', 'run: 3', 'run:0x3', 'run:3e0', 'run:03', 'run:3 ', ':3', 'run:99999999999999999']) {
    expect(parseEventId(id), id).toBeUndefined();
  }
  expect(parseEventId('run:a:0')).toEqual({ runId: 'run:a', sequence: 0 });
  expect(() => formatSseFrame({ type: 'step-start', step: 0 }, 'a\nb')).toThrow(TypeError);
});

it('leaves ids off deltas in mid-response, and a reader numbers them from the previous frame', () => {
  const delta = { type: 'text-delta', id: 't', delta: 'x' } as const;
  expect(sendsEventId(delta, 5, true)).toBe(true);
  expect(sendsEventId(delta, 5, false)).toBe(false);
  expect(sendsEventId(delta, DELTA_ID_EVERY * 2, false)).toBe(true);
  expect(sendsEventId({ type: 'text-end', id: 't' }, 5, false)).toBe(true);
  expect(formatSseFrame(delta)).toBe('data: {"type":"text-delta","id":"t","delta":"x"}\n\n');
  expect(frameEventId(undefined, delta, 'run_1:7')).toBe('run_1:8');
  expect(frameEventId('run_1:3', delta, 'run_1:7')).toBe('run_1:3');
  // Not a delta, no id: out of band (a store failure), not an event of the run.
  expect(frameEventId(undefined, { type: 'error' }, 'run_1:7')).toBeUndefined();
  // Nothing to count from.
  expect(frameEventId(undefined, delta, undefined)).toBeUndefined();
});
