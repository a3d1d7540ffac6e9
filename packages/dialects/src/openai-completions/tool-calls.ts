/**
 * Streamed tool calls of a Chat Completions response: `delta.tool_calls[]` fragments,
 * keyed by `index` (https://platform.openai.com/docs/api-reference/chat-streaming/streaming#chat-streaming/streaming-choices-delta-tool_calls).
 *
 * What compatible servers do differently:
 * - The id and name repeat on every chunk (Fireworks/Kimi), or later chunks send `id: ""`
 *   (Alibaba): a call's id and name are taken once, from the first chunk that has them.
 * - No `index` at all (older Ollama, ollama/ollama#7881; Mistral leaves it out on later
 *   fragments of a single call): the id names the call, and an id-less fragment
 *   continues the last call.
 * - The same `index` for every call of a response, each with its own id (Ollama 0.20's
 *   OpenAI API, ollama/ollama#15457; some gateways): a new id at an index already in
 *   use is a new call, never more arguments for the old one (vercel/ai#14277).
 * - Arguments before the name: held until the name comes (or the response ends).
 */
import type { Event } from '@parlance/protocol';
import type { StreamState } from '../shared/stream-state.ts';
import type { DecoderOptions } from '../types.ts';
import { isObject } from './mappings.ts';

interface ToolSlot {
  providerId?: string;
  name?: string;
  blockId?: string;
  pending: string[];
}

export interface ToolCallReader {
  /** Reads one `tool_calls` entry; false (after an error event) when it is not an object. */
  read(out: Event[], call: unknown, position: number): boolean;
  /** The response ended: a call whose name never came is still a call the model made. */
  flush(out: Event[]): void;
  readonly count: number;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function createToolCallReader(
  state: StreamState,
  options: DecoderOptions,
  hooks: { onNewCall(out: Event[]): void; invalid(out: Event[], message: string): void },
): ToolCallReader {
  const slots = new Map<string, ToolSlot>();
  /** The slot a wire index currently points at (a reused index moves it to a new slot). */
  const byIndex = new Map<number, string>();
  const usedIds = new Set<string>();
  let lastKey: string | undefined;

  function start(out: Event[], slot: ToolSlot, key: string) {
    let id = options.toolCallIds === 'synthesize' ? undefined : slot.providerId;
    id ??= `call_${key}`;
    // Block ids are unique within a response, even if a provider reuses a call id.
    let unique = id;
    for (let n = 1; usedIds.has(unique); n++) unique = `${id}_${n}`;
    usedIds.add(unique);
    slot.blockId = unique;
    state.toolStart(out, unique, slot.name ?? '');
    for (const fragment of slot.pending) state.toolDelta(out, unique, fragment);
    slot.pending = [];
  }

  function keyOf(index: unknown, providerId: string | undefined, position: number): string {
    if (typeof index === 'number') {
      const current = byIndex.get(index) ?? String(index);
      const slot = slots.get(current);
      if (slot?.providerId !== undefined && providerId !== undefined && providerId !== slot.providerId) {
        let n = 1;
        while (slots.has(`${index}_${n}`)) n++;
        const fresh = `${index}_${n}`;
        byIndex.set(index, fresh);
        return fresh;
      }
      byIndex.set(index, current);
      return current;
    }
    if (providerId !== undefined) {
      const known = [...slots.entries()].find(([, s]) => s.providerId === providerId);
      return known ? known[0] : `id:${providerId}`;
    }
    return lastKey ?? String(position);
  }

  return {
    get count() {
      return slots.size;
    },
    read(out, call, position) {
      if (!isObject(call)) {
        hooks.invalid(out, `A tool_calls entry is not an object: ${JSON.stringify(call)}`);
        return false;
      }
      const fn = isObject(call.function) ? call.function : {};
      const providerId = nonEmpty(call.id);
      const key = keyOf(call.index, providerId, position);
      let slot = slots.get(key);
      if (!slot) {
        slot = { pending: [] };
        slots.set(key, slot);
        hooks.onNewCall(out);
      }
      lastKey = key;
      if (slot.blockId === undefined) {
        slot.providerId ??= providerId;
        slot.name ??= nonEmpty(fn.name);
      }
      const args =
        typeof fn.arguments === 'string' ? fn.arguments : isObject(fn.arguments) ? JSON.stringify(fn.arguments) : '';
      if (slot.blockId === undefined && slot.name !== undefined) start(out, slot, key);
      if (args !== '') {
        if (slot.blockId !== undefined) state.toolDelta(out, slot.blockId, args);
        else slot.pending.push(args);
      }
      return true;
    },
    flush(out) {
      for (const [key, slot] of slots) if (slot.blockId === undefined) start(out, slot, key);
    },
  };
}
