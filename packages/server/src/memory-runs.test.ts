// The memory store's runs phase alone: the table keeps what it is given and wakes readers.
import { describe, expect, it } from 'vitest';
import { createRunTable } from './memory-runs.ts';

describe('run table', () => {
  it('adds, appends with sequences, ends (packed, still readable) and forgets a run with its request key', () => {
    const table = createRunTable();
    const run = table.add({ id: 'r1', requestKey: 'p:1', createdAt: 1 }, 100);
    let woken = 0;
    run.waiters.add(() => woken++);
    expect(table.push(run, { type: 'text-delta', id: 't', delta: 'a' }, 10)).toBe(0);
    expect(table.push(run, { type: 'text-delta', id: 't', delta: 'b' }, 10)).toBe(1);
    expect(woken).toBe(1);
    expect(run.bytes).toBe(20);
    expect(table.byRequestKey('p:1')).toBe(run);
    expect(table.end(run, 5)).toBe(true);
    expect(table.end(run, 6)).toBe(false);
    expect(run).toMatchObject({ finishedAt: 5, record: { status: 'finished' } });
    expect(run.events.slice(0, 2)).toEqual([
      { type: 'text-delta', id: 't', delta: 'a' },
      { type: 'text-delta', id: 't', delta: 'b' },
    ]);
    table.delete('r1');
    expect(table.get('r1')).toBeUndefined();
    expect(table.byRequestKey('p:1')).toBeUndefined();
    expect(table.size).toBe(0);
  });
});
