import { expect, it } from 'vitest';
import { formatEventId, formatSseFrame, parseEventId } from './wire.ts';

it('formats one event per SSE frame with a resumable id', () => {
  const frame = formatSseFrame({ type: 'text-delta', id: 't', delta: 'a\nb' }, formatEventId('run_1', 7));
  expect(frame).toBe('id: run_1:7\nevent: text-delta\ndata: {"type":"text-delta","id":"t","delta":"a\\nb"}\n\n');
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
