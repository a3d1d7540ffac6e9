import { expect, it } from 'vitest';
import { DELTA_ID_EVERY, formatEventId, formatSseFrame, frameEventId, parseEventId, sendsEventId } from './wire.ts';

it('formats one event per SSE frame with a resumable id: the sequence (the URL names the run)', () => {
  const frame = formatSseFrame({ type: 'text-delta', id: 't', delta: 'a\nb' }, formatEventId(7));
  expect(frame).toBe('id: 7\ndata: {"type":"text-delta","id":"t","delta":"a\\nb"}\n\n');
  expect(parseEventId('7')).toEqual({ sequence: 7 });
  // The ids of older versions (a cursor saved before) still read, with their run.
  expect(parseEventId('run_1:7')).toEqual({ runId: 'run_1', sequence: 7 });
  expect(parseEventId('garbage')).toBeUndefined();
  for (const id of ['07', '-1', ' 3', '3 ', '0x3', '3e0', '']) expect(parseEventId(id), id).toBeUndefined();
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
  expect(frameEventId(undefined, delta, '7')).toBe('8');
  expect(frameEventId('3', delta, '7')).toBe('3');
  // After a cursor saved by an older version.
  expect(frameEventId(undefined, delta, 'run_1:7')).toBe('8');
  // Not a delta, no id: out of band (a store failure), not an event of the run.
  expect(frameEventId(undefined, { type: 'error' }, '7')).toBeUndefined();
  // Nothing to count from.
  expect(frameEventId(undefined, delta, undefined)).toBeUndefined();
});
