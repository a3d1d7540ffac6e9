// @vitest-environment jsdom
// The adapter contract (persist.ts), run against both built-in adapters and a user adapter written
// the way the contract's TSDoc example shows, plus one that ignores it (which must fail).
import 'fake-indexeddb/auto';
import { ParlanceError } from '@parlance/protocol';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { adapterConformance } from '../src/adapter-conformance.ts';
import { indexedDbAdapter } from '../src/indexed-db-adapter.ts';
import { localStorageAdapter } from '../src/local-storage-adapter.ts';
import { revisionTag, tombstone, type ChatRecord, type PersistAdapter } from '../src/persist.ts';
import { fakeLocks } from './fake-locks.ts';

function memoryAdapter(memory: Map<string, ChatRecord>): PersistAdapter {
  return {
    load: (id) => memory.get(id),
    save: async (id, record, expected) => {
      await undefined;
      if (expected !== undefined && revisionTag(memory.get(id)) !== expected) throw new ParlanceError('conflict', 'Saved elsewhere first');
      memory.set(id, record);
    },
    remove: (id) => {
      const stored = memory.get(id);
      if (stored && !stored.deleted) memory.set(id, tombstone(id, stored));
    },
  };
}

const memory = new Map<string, ChatRecord>();
describe.each<[string, () => PersistAdapter]>([
  ['localStorage', () => localStorageAdapter({ prefix: 'conf:' })],
  ['localStorage under Web Locks', () => (vi.stubGlobal('navigator', { ...navigator, locks: locks }), localStorageAdapter({ prefix: 'conf-locked:' }))],
  ['IndexedDB', () => indexedDbAdapter({ name: 'conformance' })],
  ['a user adapter (memory)', () => memoryAdapter(memory)],
])('adapter contract: %s', (_, make) => {
  for (const { name, run } of adapterConformance(make)) it(name, run);
});
const locks = fakeLocks();
afterAll(() => vi.unstubAllGlobals());

it('an adapter that writes blindly fails the contract', async () => {
  const blind = new Map<string, unknown>();
  const cases = adapterConformance(() => ({ load: (id) => blind.get(id), save: (id, record) => void blind.set(id, record) }));
  await expect(cases.find((c) => c.name.startsWith('save is a compare-and-set'))!.run()).rejects.toThrow(/conflict/);
});
