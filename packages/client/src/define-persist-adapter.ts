/**
 * A custom persistence adapter for `ChatStore`: the storage methods you write, plus the chat side of
 * persistence (loading, saving merged with other tabs' saves, hearing other tabs, the run lock;
 * chat-persistence.ts) that `ChatStore` does not ship itself, so an app that persists nothing does
 * not download it. The built-in adapters (`localStorageAdapter`, `indexedDbAdapter`) have it already.
 */
import { attachChatPersistence } from './chat-persistence.ts';
import type { ListingAdapter, PersistAdapter } from './persist.ts';

/**
 * Makes a custom adapter usable by `ChatStore` (and `useChat`): the same methods, with the chat
 * side of persistence attached. The methods are called on `adapter` (a class keeps its `this`).
 *
 * @example
 * const records = new Map<string, ChatRecord>();
 * const persist = definePersistAdapter({
 *   load: (id) => records.get(id),
 *   save: (id, record, expected) => {
 *     if (expected !== undefined && revisionTag(records.get(id)) !== expected) throw new ParlanceError('conflict', 'Saved elsewhere first');
 *     records.set(id, record);
 *   },
 * });
 * const chat = new ChatStore({ api: '/api/chat', threadId: 'support', persist });
 */
export function definePersistAdapter(adapter: ListingAdapter): ListingAdapter;
export function definePersistAdapter(adapter: PersistAdapter): PersistAdapter;
export function definePersistAdapter(adapter: PersistAdapter): PersistAdapter {
  if (adapter.attach) return adapter;
  const out: PersistAdapter = {
    load: (id) => adapter.load(id),
    save: (id, record, expected) => adapter.save(id, record, expected),
    attach: attachChatPersistence,
  };
  // Only the optional methods the adapter has: their absence means something (e.g. no quarantine: never save over).
  if (adapter.list) out.list = () => adapter.list!();
  if (adapter.remove) out.remove = (id) => adapter.remove!(id);
  if (adapter.subscribe) out.subscribe = (listener) => adapter.subscribe!(listener);
  if (adapter.quarantine) out.quarantine = (id, stored, reason) => adapter.quarantine!(id, stored, reason);
  return out;
}
