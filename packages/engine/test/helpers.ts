import { fakeModel, type FakeModel, type Script } from '@parlance/testing';
import type { Event, Message } from '@parlance/protocol';
import { createEngine, type Engine, type EngineOptions } from '../src/index.ts';

/** Deterministic ids, so two runs of one script produce identical events. */
export function counterIds(prefix = 'id'): () => string {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

export function setup(script: Script, options: Omit<EngineOptions, 'model'> = {}, dialect?: string): { model: FakeModel; engine: Engine } {
  const model = fakeModel(dialect ? { script, dialect } : { script });
  return { model, engine: createEngine({ model, generateId: counterIds(), ...options }) };
}

/** A conversation of one user message. */
export function ask(text: string): Message[] {
  return [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }];
}

export async function drain(events: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

export function ofType<T extends Event['type']>(events: Event[], type: T): Extract<Event, { type: T }>[] {
  return events.filter((e): e is Extract<Event, { type: T }> => e.type === type);
}
