/**
 * Small named values kept beside the memory store's runs (the AI SDK route's chat -> run map),
 * each until its own expiry. Bounded by bytes: past `maxBytes` the values set longest ago are
 * dropped first (a dropped chat pointer only means a reload does not resume; the run goes on).
 */
import { ParlanceError } from '@parlance/protocol';

/** Bytes one value may hold: a value is a pointer and a little state, not a document. */
export const MAX_VALUE_BYTES = 1024 * 1024;

export interface ValueTable {
  set(key: string, value: string, until: number): void;
  get(key: string, now: number): string | undefined;
  /** Deletes `key`, only while it still holds `ifValue` when that is given. */
  delete(key: string, ifValue?: string): void;
  /** Bytes held (keys and values, as UTF-16 code units). */
  readonly bytes: number;
}

/**
 * The value table of the memory store.
 *
 * @example
 * const values = createValueTable(8 * 1024 * 1024);
 * values.set('chat:alice:c1', JSON.stringify({ runId }), Date.now() + 60_000);
 */
export function createValueTable(maxBytes: number): ValueTable {
  // Insertion order is set order: a value set again moves to the end (deleted, then set).
  const values = new Map<string, { value: string; until: number }>();
  let bytes = 0;
  const remove = (key: string) => {
    const held = values.get(key);
    if (!held) return;
    values.delete(key);
    bytes -= key.length + held.value.length;
  };
  return {
    get bytes() {
      return bytes;
    },
    set(key, value, until) {
      if (key.length + value.length > MAX_VALUE_BYTES) {
        throw new ParlanceError('invalid_request', `A stored value may hold at most ${MAX_VALUE_BYTES} bytes`, { status: 413 });
      }
      remove(key);
      values.set(key, { value, until });
      bytes += key.length + value.length;
      for (const oldest of values.keys()) {
        if (bytes <= maxBytes || oldest === key) break;
        remove(oldest);
      }
    },
    get(key, now) {
      const held = values.get(key);
      if (!held) return undefined;
      if (held.until < now) {
        remove(key);
        return undefined;
      }
      return held.value;
    },
    delete(key, ifValue) {
      if (ifValue !== undefined && values.get(key)?.value !== ifValue) return;
      remove(key);
    },
  };
}
